"""Trusted checks for less-select/1 (never enter the sandbox): hand-checked values and the paper's properties,
on the outputs probe_less.py emitted. The default comparison with the reference's outputs has already passed.
Parameters and echoed data of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-9, atol=1e-11)


def seq(d: dict, key: str) -> list:
    """A list output, as the probe runner flattens it (key.0, key.1, ...)."""
    kind, n = d[key]
    if kind != "seq":
        raise AssertionError(f"{key} is not a list")
    return [d[f"{key}.{i}"] for i in range(n)]


def cosine_influence(train, val, lrs) -> np.ndarray:
    """Eq. (7) written directly: sum_i lr_i cos(val_ij, train_in), as an (n, J) array."""
    train, val = np.asarray(train, dtype=np.float64), np.asarray(val, dtype=np.float64)
    out = np.zeros((train.shape[1], val.shape[1]))
    for i, lr in enumerate(np.asarray(lrs, dtype=np.float64)):
        t = train[i] / np.linalg.norm(train[i], axis=1, keepdims=True)
        v = val[i] / np.linalg.norm(val[i], axis=1, keepdims=True)
        out += lr * t @ v.T
    return out


# ---------------------------------------------------------------- example_gradients


@check("gradients_match_reference[*-f64]")
def gradients_are_derivatives(out, ref):
    fd = np.asarray(ref["fd"])
    close(np.asarray(out["f64.grads"])[: len(fd)], fd, rtol=1e-5, atol=1e-8, what="central finite differences of loss")
    equal(out["grad_fields_untouched"], True, what=".grad fields left untouched")


@check("gradients_match_reference[*-f32]")
def gradients_keep_dtype(out, ref):
    equal(out["f32.grads#dtype"], "float32", what="gradients in the model's dtype")
    equal(out["grad_fields_untouched"], True, what=".grad fields left untouched")


@check("gradients_of_one_example")
def gradients_one(out, ref):
    close(out["grads"], ref["fd"], rtol=1e-5, atol=1e-8, what="central finite differences of loss")


# ---------------------------------------------------------------- adam_directions


@check("adam_matches_reference[*]")
def adam_is_eq4(out, ref):
    g, m, v = (np.asarray(ref[k], dtype=np.float64) for k in ("grads", "m", "v"))
    b1, b2 = ref["betas.0"], ref["betas.1"]
    t = ref["step"] + 1  # the update this state takes next (AdamState docstring)
    m1 = (b1 * m + (1 - b1) * g) / (1 - b1**t)
    v1 = (b2 * v + (1 - b2) * g**2) / (1 - b2**t)
    close(out["gamma"], m1 / (np.sqrt(v1) + ref["eps"]), **F64, what="Eq. (4)")


@check("adam_matches_reference[1]")
def adam_first_step(out, ref):
    # step 0, m = v = 0: m_1 = (1 - b1) g / (1 - b1) = g, v_1 = g^2, so Gamma = g / (|g| + eps), about sign(g)
    g = np.asarray(ref["grads"], dtype=np.float64)
    close(out["gamma"], g / (np.abs(g) + 1e-8), rtol=1e-12, atol=1e-12, what="first Adam step")


@check("adam_keeps_float32")
def adam_f32(out, ref):
    equal(out["gamma#dtype"], "float32", what="dtype of grads kept")


# ---------------------------------------------------------------- checkpoint_features


@check("features_match_reference[*]")
def features_are_eq6(out, ref):
    proj = np.asarray(ref["proj"])
    want = np.stack([(np.asarray(g) @ proj).mean(axis=0) for g in seq(ref, "val_grads")])
    close(out["val"], want, **F64, what="projected average validation gradient per subtask")
    equal(np.asarray(out["train"]).shape[1], proj.shape[1], what="feature dimension d")
    close(out["lora_A_after"], ref["ck_lora_A"], rtol=0, atol=0, what="model left at the checkpoint")


# ---------------------------------------------------------------- influence_scores


@check("influence_matches_reference[*]")
def influence_is_eq7(out, ref):
    close(out["scores"], cosine_influence(ref["train"], ref["val"], ref["lrs"]), **F64, what="Eq. (7)")


@check("influence_hand_values")
def influence_hand(out, ref):
    # cos([3,4],[1,0]) = 0.6, cos([3,4],[0,5]) = 0.8; [0,2] -> (0, 1); [-1,0] -> (-1, 0); times lr 0.5
    close(out["scores"], [[0.3, 0.4], [0.0, 0.5], [-0.5, 0.0]], rtol=1e-12, atol=1e-14, what="one checkpoint")
    # second checkpoint: train x2 (cosine unchanged), val negated (cosine negated), lr 0.25: total 0.25 cos
    close(out["two_checkpoints"], [[0.15, 0.2], [0.0, 0.25], [-0.25, 0.0]], rtol=1e-12, atol=1e-14,
          what="two checkpoints")


@check("influence_ignores_feature_norms")
def influence_norms(out, ref):
    close(out["rescaled"], out["base"], rtol=1e-10, atol=1e-12, what="cosine: invariant to positive rescaling")


# ---------------------------------------------------------------- less_select


def _selection_ok(out, ref) -> None:
    scores, per = np.asarray(out["scores"]), np.asarray(out["per_subtask"])
    close(scores, per.max(axis=1), rtol=0, atol=0, what="score = max over subtasks")
    n = ref["n"]
    k = max(1, math.floor(ref["fraction"] * n + 1e-9))
    want = sorted(range(n), key=lambda i: (-scores[i], i))[:k]
    equal(np.asarray(out["indices"]).tolist(), want, what=f"top {k} of {n}, best first, ties by position")
    equal(out["indices#dtype"], "int64", what="indices dtype")


@check("select_matches_reference[*]")
def select_is_top_fraction(out, ref):
    _selection_ok(out, ref)


@check("select_breaks_ties_by_position")
def select_ties(out, ref):
    _selection_ok(out, ref)
    s = np.asarray(out["scores"])
    # pool = rows [5, 2, 5, 9, 2, 9, 5, 0]: duplicates score alike, exactly where the host's BLAS treats every row
    # of a batch the same way; an AVX2 MKL can split them by an ulp, and _selection_ok then ranks by the scores
    for group in ((0, 2, 6), (1, 4), (3, 5)):
        close(s[list(group)], np.full(len(group), s[group[0]]), rtol=1e-12, atol=0, what="duplicate examples' scores")


@check("select_one_checkpoint_matches_features")
def select_one(out, ref):
    _selection_ok(out, ref)
    per = np.asarray(out["per_subtask"])
    expect(bool(np.all(np.abs(per) <= ref["lr"] * (1 + 1e-12))), "one checkpoint: |lr x cosine| <= lr")


@check("warmup_then_select[0]")
def warmup_f64(out, ref):
    scores = np.asarray(out["f64.scores"])
    equal(np.asarray(out["indices"]).tolist(), sorted(range(24), key=lambda i: (-scores[i], i))[:6],
          what="top 6 of 24")


@check("warmup_then_select[1]")
def warmup_f32(out, ref):
    equal(out["f32_indices_count"], 6, what="floor(0.25 x 24) selected")

