"""Trusted checks for flagembedding-m3/1.

Two conventions are decided neither by paper.md nor by what the masked package shows: which special tokens are
left out of the lexical weights (the paper treats every token as a term; the package may drop [CLS], [SEP], [PAD]
or any of them), and whether the [CLS] vector takes part in the multi-vector score. The probe emits, for the
outputs they touch, every reading computed in plain torch from the encoder's hidden states and the heads; a
candidate passes when it matches one reading. Everything else is compared with the release's outputs by the
default comparison (dense vectors, lexical weights of ordinary terms, pure score functions)."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, expect

F32 = {"rtol": 2e-4, "atol": 2e-5}   # inference runs in float32 (the embedder casts to float on CPU)
F64 = {"rtol": 1e-6, "atol": 1e-9}   # training probes run in float64


def _rows(out, key):
    n = out.get(key)
    expect(isinstance(n, tuple) and n[0] == "seq", f"{key} is not a list")
    return [np.asarray(out[f"{key}.{i}"], dtype=np.float64) for i in range(n[1])]


def _matches(got, want, tol):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= tol["atol"] + tol["rtol"] * np.abs(want)))


def _one_of(got, alts, tol, what):
    alts = np.atleast_2d(np.asarray(alts, dtype=np.float64))
    got = np.atleast_1d(np.asarray(got, dtype=np.float64))
    ok = [i for i in range(alts.shape[0]) if _matches(got, alts[i], tol)]
    expect(ok, f"{what}: {np.asarray(got)} matches none of the readings {alts.tolist()}")
    return ok


def _colbert(out, tol, what):
    got, full = _rows(out, "colbert"), _rows(out, "colbert_full")
    expect(len(got) == len(full), f"{what}: {len(got)} multi-vector outputs for {len(full)} texts")
    with_cls = [_matches(g, f, tol) for g, f in zip(got, full, strict=True)]
    without = [_matches(g, f[1:], tol) for g, f in zip(got, full, strict=True)]
    expect(all(with_cls) or all(without),
           f"{what}: the token vectors are not the normalised projected states (with or without [CLS])")


@check("encode[cls_normalized]")
def encode_colbert(out, ref):
    _colbert(out, F32, "encode")


@check("encode[*]")
def encode_string(out, ref):
    close(out["string_dense"], ref["string_dense"], what="dense vector of a single string", **F32)


@check("compute_score[*]")
def compute_score(out, ref):
    d, s, c = (np.asarray(out[k], dtype=np.float64) for k in ("dense", "sparse", "colbert"))
    _one_of(s, out["alt_sparse"], F32, "lexical scores")
    _one_of(c, out["alt_colbert"], F32, "multi-vector scores")
    weights_sets = [[0.4, 0.2, 0.4]] if _has_weights(out, ref) else [[1.0, 1.0, 1.0], [1.0, 0.3, 1.0]]
    d, s, c = (np.atleast_1d(x) for x in (d, s, c))
    sd = np.atleast_1d(np.asarray(out["sparse+dense"], dtype=np.float64))
    csd = np.atleast_1d(np.asarray(out["colbert+sparse+dense"], dtype=np.float64))
    ok = False
    for w in weights_sets:
        pair_sum = w[0] * d + w[1] * s
        all_sum = w[0] * d + w[1] * s + w[2] * c
        for a, b in ((pair_sum, all_sum), (pair_sum / (w[0] + w[1]), all_sum / sum(w))):
            if _matches(sd, a, F32) and _matches(csd, b, F32):
                ok = True
    expect(ok, "hybrid scores are not the weighted combination (sum or weighted mean) of the three scores")


def _has_weights(out, ref):
    # the reference's sparse+dense differs from the plain mean of its dense and sparse when weights are given
    d, s, sd = (np.asarray(ref[k], dtype=np.float64) for k in ("dense", "sparse", "sparse+dense"))
    return not np.allclose(sd, (d + s) / 2, rtol=1e-4, atol=1e-6)


@check("train_loss[*]")
def train_loss(out, ref):
    expect(out["grad_finite"] is True, "the loss does not back-propagate a finite, non-zero gradient")
    _one_of(out["loss"], np.asarray(out["alts"])[:, None], F64, "training loss")


@check("selfdistill_start_step")
def start_step(out, ref):
    expect(out["eval_loss_none"] is True, "forward in eval mode returns a loss")
    _one_of(out["first"], np.asarray(out["plain"])[:, None], F64, "loss before self-distillation starts")
    _one_of(out["last"], np.asarray(out["distilled"])[:, None], F64, "loss once self-distillation runs")


@check("save_and_reload")
def save_and_reload(out, ref):
    close(out["dense"], out["dense_ref"], what="dense vectors after save and reload", **F32)
    close(out["lex"], out["lex_ref"], what="lexical weights after save and reload", **F32)
    _colbert(out, F32, "reloaded multi-vector")
