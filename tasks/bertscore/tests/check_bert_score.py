"""Trusted checks for bertscore/1 (never enter the sandbox): the hand-computed scores and the properties of
BERTScore, on the outputs probe_bert_score.py emitted. The default comparison with the reference's outputs has
already passed; where an old test compared with the reference's fixture outputs, the check compares with the
reference run's outputs (`ref`), with the old tolerance."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

# fnmatch reads "[...]" as a character class, so parametrised cases are matched as "name*"

F64 = dict(rtol=1e-9, atol=1e-10)
F32 = dict(rtol=1e-5, atol=1e-6)
NAMES = ("precision", "recall", "f1")


def tol(ref, key: str) -> dict:
    """The old tests' tolerance for the dtype of an output (`tol(p)` there; the dtype is compared by default)."""
    return F64 if ref.get(f"{key}#dtype") == "float64" else F32


def scores(out, key: str) -> tuple:
    return tuple(out[f"{key}.{n}"] if key else out[n] for n in NAMES)


def assert_scores(got, want, what: str, **tolerance) -> None:
    """Each of (precision, recall, f1) has the wanted shape and values within the tolerance."""
    for name, g, w in zip(NAMES, got, want, strict=True):
        w = np.asarray(w, dtype=np.float64)
        equal(tuple(np.shape(g)), tuple(w.shape), what=f"{what}: {name} shape")
        close(g, w, what=f"{what}: {name}", **tolerance)


# --------------------------------------------------------------------------- differential


@check("matches_reference_on_random_batches*")
def random_batches(out, ref):
    equal(out["n_outputs"], 3, what="number of outputs")
    equal(out["all_tensors"], True, what="outputs are tensors")
    want = ref["precision#dtype"]  # the embeddings' dtype (the fixtures' float64 or float32)
    for name in NAMES:
        equal(out[f"{name}#dtype"], want, what=f"{name} dtype")


# --------------------------------------------------------------------------- values checked by hand


@check("hand_computed_uniform_weights")
def hand_uniform(out, ref):
    # cos(a, c) = 0.6, cos(a, d) = -0.6, cos(b, c) = 0.8, cos(b, d) = -0.8.
    # R = (max(0.6, -0.6) + max(0.8, -0.8)) / 2 = (0.6 + 0.8) / 2 = 0.7
    # P = (max(0.6, 0.8) + max(-0.6, -0.8)) / 2 = (0.8 - 0.6) / 2 = 0.1
    # F = 2 * 0.1 * 0.7 / (0.1 + 0.7) = 0.14 / 0.8 = 0.175
    assert_scores(scores(out, ""), ([0.1], [0.7], [0.175]), "uniform weights", **F64)


@check("hand_computed_idf_weights")
def hand_idf(out, ref):
    # idf(a = id 5) = 2, idf(b = id 6) = 1, idf(c = id 7) = 1, idf(d = id 8) = 3; special ids get weight 9 here,
    # which must not matter because special tokens are never scored.
    # R = (2 * 0.6 + 1 * 0.8) / (2 + 1) = 2 / 3
    # P = (1 * 0.8 + 3 * (-0.6)) / (1 + 3) = -1 / 4
    # F = 2 * (-1/4) * (2/3) / (-1/4 + 2/3) = (-1/3) / (5/12) = -0.8
    assert_scores(scores(out, ""), ([-0.25], [2.0 / 3.0], [-0.8]), "idf weights", **F64)


@check("hand_computed_many_to_one_matching")
def hand_many_to_one(out, ref):
    # Reference [CLS] a a' [SEP] with a = (1, 0), a' = (2, 0); candidate [CLS] a b [SEP] with b = (0, 1).
    # Greedy matching lets both reference tokens use the candidate's a: R = (1 + 1) / 2 = 1.
    # P = (cos(a, a) + max(cos(b, a), cos(b, a'))) / 2 = (1 + 0) / 2 = 0.5;  F = 2 * 0.5 * 1 / 1.5 = 2 / 3.
    assert_scores(scores(out, ""), ([0.5], [1.0], [2.0 / 3.0]), "many-to-one", **F64)


@check("orthogonal_sentences_give_zero_f1_not_nan")
def orthogonal(out, ref):
    # All cosines are 0, so P = R = 0 and F is defined as 0.
    expect(not np.isnan(out["f1"]).any(), "F1 is NaN where P + R = 0")
    assert_scores(scores(out, ""), ([0.0, 0.0], [0.0, 0.0], [0.0, 0.0]), "orthogonal", **F64)


# --------------------------------------------------------------------------- properties from the paper


@check("identical_sentences_score_one")
def identical(out, ref):
    for weights in ("uniform", "idf"):
        assert_scores(scores(out, weights), ([1.0, 1.0], [1.0, 1.0], [1.0, 1.0]), f"identical, {weights}", **F64)


@check("swapping_reference_and_candidate_swaps_precision_and_recall*")
def swapping(out, ref):
    p, r, f = scores(out, "original")
    p2, r2, f2 = scores(out, "swapped")
    t = tol(ref, "original.precision")
    close(p2, r, what="swapped precision = recall", **t)
    close(r2, p, what="swapped recall = precision", **t)
    close(f2, f, what="swapped f1 = f1", **t)


@check("invariant_to_embedding_lengths*")
@check("invariant_to_token_order*")
@check("special_and_padding_states_are_ignored*")
def invariant(out, ref):
    # the changed batch scores as the reference scored the original one
    assert_scores(scores(out, "changed"), scores(ref, "original"), "changed batch", **tol(ref, "original.precision"))


@check("uniform_idf_equals_no_weighting_and_idf_scale_is_irrelevant*")
def uniform_idf(out, ref):
    equal(ref["has_idf"], True, what="fixture has an idf")
    t = tol(ref, "original.precision")
    assert_scores(scores(out, "constant"), scores(out, "plain"), "constant idf vs none", **t)
    assert_scores(scores(out, "scaled"), scores(ref, "original"), "scaled idf", **t)


def _ints(ref, key: str) -> list:
    return [ref[f"{key}.{i}"] for i in range(ref[key][1])]  # a sequence decodes to ("seq", length)


@check("idf_weights_come_from_the_scored_sentence")
def idf_from_scored_side(out, ref):
    ref_only, cand_only = _ints(ref, "ref_only"), _ints(ref, "cand_only")
    expect(ref_only and cand_only, "fixture lacks a reference-only or a candidate-only word")
    p, r = out["base.precision"], out["base.recall"]
    for word in ref_only:
        close(out[f"bumped{word}.precision"], p, what=f"precision after raising reference word {word}", **F64)
        expect(np.abs(out[f"bumped{word}.recall"] - r).max() > 1e-3, f"recall unchanged by reference word {word}")
    for word in cand_only:
        close(out[f"bumped{word}.recall"], r, what=f"recall after raising candidate word {word}", **F64)
        expect(np.abs(out[f"bumped{word}.precision"] - p).max() > 1e-3,
               f"precision unchanged by candidate word {word}")


@check("batch_of_pairs_equals_pairs_scored_alone")
def batch_vs_single(out, ref):
    p, r, f = scores(out, "batch")
    rows = sorted(int(k[3:].split(".")[0]) for k in ref if k.startswith("row") and k.endswith(".f1"))
    expect(len(rows) == len(p), "one single-pair score per row")
    for b in rows:
        equal(ref[f"pad_inside{b}"], False, what=f"row {b}: padding inside the trimmed reference")
        assert_scores(scores(out, f"row{b}"), (p[b:b + 1], r[b:b + 1], f[b:b + 1]), f"row {b} alone", **F64)


@check("special_ids_argument_is_respected*")
def special_ids_argument(out, ref):
    equal(ref["default_specials"], True, what="fixture uses the default special ids")
    equal(ref["no_idf"], True, what="fixture has no idf")
    t = tol(ref, "original.precision")
    assert_scores(scores(out, "pad_only"), scores(out, "relabelled"), "special_ids=(PAD_ID,)", **t)
    # torch.allclose defaults: rtol 1e-5, atol 1e-8
    expect(not np.allclose(out["pad_only.f1"], ref["original.f1"], rtol=1e-5, atol=1e-8),
           "special_ids=(PAD_ID,) scores like the default special ids")


@check("scores_bounded_and_inputs_untouched*")
def bounded_and_untouched(out, ref):
    for name in ("precision", "recall"):
        v = out[name]
        expect(bool(((v >= -1 - 1e-6) & (v <= 1 + 1e-6)).all()), f"{name} outside [-1, 1]")
    for key in ref:
        if key.startswith("inputs_after.") and "#" not in key:
            equal(out[key], ref[key], what=f"bert_score modified its input {key[len('inputs_after.'):]}")
