"""Trusted checks for emojicrypt/1 (never enter the sandbox): hand-checked values and the metric's properties,
on the outputs probe_decryption_similarity.py emitted. The default comparison with the reference's outputs has
already passed."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

TOL = 1e-12


def features_of(out: dict, prefix: str = "") -> dict[str, object]:
    """The emitted per_feature dict, back from its flattened keys `per_feature.<name>`."""
    head = f"{prefix}per_feature."
    return {k[len(head):]: v for k, v in out.items() if k.startswith(head) and "#" not in k}


def scored(out: dict, mean: float, per_feature: dict[str, float], tol: float = TOL, prefix: str = "") -> None:
    """The old tests' `check`: Python floats, the mean and every feature's mean within `tol` (absolute)."""
    equal(out[f"{prefix}mean_is_float"], True, what="mean is a Python float")
    close(out[f"{prefix}mean"], mean, rtol=0, atol=tol, what="mean")
    equal(out[f"{prefix}per_feature_is_dict"], True, what="per_feature is a dict")
    equal(out[f"{prefix}per_feature_all_float"], True, what="per_feature values are Python floats")
    got = features_of(out, prefix)
    equal(sorted(got), sorted(per_feature), what="feature names")
    for name, want in per_feature.items():
        close(got[name], want, rtol=0, atol=tol, what=f"feature {name}")


# --------------------------------------------------------------------------- differential


@check("matches_reference*")
def types_and_bounds(out, ref):
    scored(out, ref["mean"], features_of(ref))
    # cosine similarities and their means lie in [-1, 1]
    for name, value in [("mean", out["mean"]), *features_of(out).items()]:
        expect(-1.0 - 1e-12 <= float(value) <= 1.0 + 1e-12, f"{name} = {value!r} outside [-1, 1]")


# --------------------------------------------------------------------------- by hand


@check("hand_computed_scores")
def hand_computed(out, ref):
    # color: red -> crimson: cos((1,0,0), (1,1,0)) = 1/sqrt(2) = 0.7071067811865476
    # color: blue -> navy:   cos((0,2,0), (0,3,4)) = 6 / (2 * 5) = 0.6
    # size:  big -> "" (empty answer, zero embedding): defined as 0
    # mean over the 3 pairs = (0.7071067811865476 + 0.6 + 0) / 3 = 0.43570226039551584
    # per feature: color = (0.7071067811865476 + 0.6) / 2 = 0.6535533905932738, size = 0.0
    scored(out, 0.43570226039551584, {"color": 0.6535533905932738, "size": 0.0})


@check("mean_weights_pairs_not_features")
def pair_weighted(out, ref):
    # 3 color pairs scoring 1, 1, 1 and one size pair scoring 0 (big -> red is orthogonal):
    # pair mean = 3/4 = 0.75, while the mean of feature means would be (1 + 0)/2 = 0.5.
    scored(out, 0.75, {"color": 1.0, "size": 0.0})


@check("values_are_stripped_and_split_at_the_first_separator")
def stripped(out, ref):
    # The answers carry new lines and spaces; the embedder only knows the stripped values.
    # "Feature: note, Value: a, Value: b" has the value "a, Value: b" (split at the first separator).
    # scores: 1/sqrt(2), 0 (empty answer), 1/sqrt(2); mean = sqrt(2)/3 = 0.47140452079103173
    scored(out, 0.47140452079103173, {"color": 0.7071067811865476, "size": 0.0, "note": 0.7071067811865476})
    equal(out["unknown_texts_embedded"], ("seq", 0), what="embedded texts must be the stripped values only")


@check("zero_original_embedding_scores_zero")
def zero_original(out, ref):
    scored(out, 0.0, {"size": 0.0})


# --------------------------------------------------------------------------- properties


@check("perfect_attacker_scores_one*")
def perfect_attacker(out, ref):
    features = ref["features"].split("\n")  # the feature names, parsed from the inputs by the reference run
    scored(out, 1.0, {f: 1.0 for f in features}, tol=1e-12)


@check("invariant_to_embedding_scale_and_pair_order*")
def scale_and_order(out, ref):
    # the old test compared with the reference's stored scores of the unscaled pairs in their original order
    scored(out, ref["base.mean"], features_of(ref, "base."), tol=1e-11, prefix="scaled.")


@check("similarity_is_computed_in_float64")
def float64(out, ref):
    # the float32 embeddings, widened to float64, then the cosine in float64
    a = np.array([0.1, 0.7, 0.3], dtype=np.float32).astype(np.float64)
    b = np.array([0.11, 0.69, 0.31], dtype=np.float32).astype(np.float64)
    want = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    scored(out, want, {"f": want}, tol=1e-14)
