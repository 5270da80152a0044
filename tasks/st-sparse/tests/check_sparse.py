"""Trusted checks for st-sparse/1 (never enter the sandbox).

The default comparison holds the candidate to the release where paper.md or the package decides a value. Here:
values worked out by hand from paper.md's equations, the gradient-caching identity (the cached SPLADE loss has the
un-cached loss's value and gradients on the candidate's own code), the adaptive-sparsity property of encode, and
the refusals, whose exception type is the solver's choice (any exception is accepted)."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from lmrbench.checks import check, close, equal, expect


def _a(v):
    return np.asarray(v, dtype=np.float64)


def _raised(v) -> bool:
    return isinstance(v, str) and v.startswith("raised:")


@check("hand_values")
def hand_values(out, ref):
    # FLOPS: rows (1,0,2), (0,0,1); mean code (0.5, 0, 1.5); squared norm 0.25 + 2.25 = 2.5.
    close(out["flops"], 2.5, rtol=1e-12)
    # threshold 1: row 2 has one active dim (not > 1) and is zeroed; mean over N=2 is (0.5, 0, 1): 1.25.
    close(out["flops_t1"], 1.25, rtol=1e-12)
    # SPLADE: logits (1, -1) and (e-1, 0.5) -> log1p(relu): (log 2, 0) and (1, log 1.5).
    close(out["pool_max"], [[1.0, math.log(1.5)]], rtol=1e-12)
    close(out["pool_sum"], [[1.0 + math.log(2.0), math.log(1.5)]], rtol=1e-12)
    # CSR code: W = [[1,0],[0,1],[1,1]], zero biases, x = (2, 1): a = (2, 1, 3); top-1 keeps latent 2.
    close(out["sae"], [[0.0, 0.0, 3.0]], rtol=1e-12)
    # NMSE: MSE((0,1),(2,2) vs (0,0),(2,4)) = (1 + 4)/4 = 1.25; batch mean (1, 2) gives (1+4+1+4)/4 = 2.5.
    close(out["nmse"], 0.5, rtol=1e-12)
    # constant target rows: plain MSE = (1 + 0 + 0 + 4)/4 = 1.25
    close(out["nmse_const"], 1.25, rtol=1e-12)


@check("cached_splade[*]")
def cached_equals_plain(out, ref):
    """Gradient caching changes memory only: the candidate's cached loss equals its own un-cached loss."""
    close(out["cached.total"], out["plain.total"], rtol=1e-9)
    close(out["cached.grad_norm"], out["plain.grad_norm"], rtol=1e-8)
    close(out["cached.grad_emb"], out["plain.grad_emb"], rtol=1e-8, atol=1e-10)
    # the reported terms sum to the total (float32 terms are accepted for logging)
    close(out["components.sum"], float(out["cached.total"]), rtol=1e-5)


@check("splade_pooling_refusals")
def pooling_refusals(out, ref):
    expect(_raised(out["mean"]), "an unknown pooling strategy was accepted")
    expect(_raised(out["gelu"]), "an unknown activation function was accepted")
    equal(out["valid"], "ok")


@check("max_active_dims_refusals")
def max_active_refusals(out, ref):
    expect(_raised(out["negative"]), "a negative max_active_dims was accepted")
    equal(out["valid"], "ok")


@check("splade_loss_refusal")
def splade_refusal(out, ref):
    expect(_raised(out["no_embedding_method"]), "a base loss without compute_loss_from_embeddings was accepted")


@check("sparsity_stats")
def sparsity_bad_inputs(out, ref):
    expect(_raised(out["bad_dim"]), "sparsity accepted a 3-D tensor")


def _k_or_none(out, key: str, k: int) -> None:
    """The stored max_active_dims of a CSR model: None or the autoencoder's k (the constructor docstring says
    "Defaults to None (use the model's default)"; paper.md: a CSR model encodes with its autoencoder's k by default;
    the codes are the same either way, so both readings are accepted)."""
    v = out[key]
    expect(v is None or int(v) == k, f"{key}: got {v!r}, want None or {k}")


@check("csr_default_stack")
def csr_default_max_active(out, ref):
    _k_or_none(out, "max_active_dims", 256)


@check("csr_converted_from_sentence_transformer")
def csr_converted_max_active(out, ref):
    _k_or_none(out, "max_active_dims", 8)


@check("csr_encode_and_roundtrip[*]")
def csr_roundtrip_max_active(out, ref):
    _k_or_none(out, "max_active_dims", 5)
    _k_or_none(out, "loaded_max_active_dims", 5)


@check("intersection_and_decode")
def decode_refusals(out, ref):
    expect(_raised(out["bad_topk"]), "decode accepted top_k=0")
    # the decoded weights are sorted in decreasing order
    for row in range(ref["dec_all_w"][1]):
        n = ref[f"dec_all_w.{row}"][1]
        w = [float(out[f"dec_all_w.{row}.{i}"]) for i in range(n)]
        expect(all(a >= b for a, b in pairwise(w)), f"decoded weights of row {row} are not sorted")


@check("splade_max_active_dims[*]")
def max_active_dims_property(out, ref):
    """At most m active dims per code; the kept entries are the m largest of the unrestricted code."""
    a = _a(out["a"])
    expect(bool(((a != 0).sum(axis=1) <= max(int(ref["stored"]), 1)).all()), "more active dims than asked")


@check("csr_encode_and_roundtrip[*]")
def csr_adaptive(out, ref):
    e, e3 = _a(out["emb"]), _a(out["emb3"])
    expect(bool(((e != 0).sum(axis=1) <= 5).all()), "a CSR code has more than k active dims")
    expect(bool(((e3 != 0).sum(axis=1) <= 3).all()), "max_active_dims=3 left more than 3 active dims")
    # the 3-sparse code keeps the 3 largest entries of the k-sparse code
    for row, row3 in zip(e, e3, strict=True):
        kept = np.sort(row)[::-1][:3]
        close(np.sort(row3[row3 != 0])[::-1], kept[kept != 0], rtol=1e-10)
