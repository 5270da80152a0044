"""Trusted checks for repe/1 (never enter the sandbox): hand-checked values and the properties of LAT reading vectors,
on the outputs probe_reading_vectors.py emitted. The default comparison with the reference's outputs has already
passed (for the outputs the probe compares)."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

# Patterns use "?" for the brackets of a parametrised case's name: fnmatch reads "[...]" as a character class.
FIELDS = ("directions", "explained_variance_ratio", "pair_accuracy")


def f64(out, key: str) -> None:
    """The output is a float64 array (the old tests' assert_close compared dtypes too)."""
    equal(out.get(f"{key}#dtype"), "float64", what=f"{key} dtype")


def shape(out, key: str, want: tuple[int, ...]) -> None:
    got = out[key]
    expect(isinstance(got, np.ndarray), f"{key}: not an array")
    equal(list(got.shape), list(want), what=f"{key} shape")


def no_nan(got, what: str) -> None:
    """torch.testing.assert_close never takes NaN for NaN (lmrbench's `close` does, where want has NaN)."""
    expect(isinstance(got, np.ndarray) and not np.isnan(got).any(), f"{what}: NaN values (or not an array)")


def same(out, a: str, b: str, atol: float, what: str) -> None:
    """assert_close(a, b, atol=atol, rtol=0): same dtype and shape, values within atol, no NaN."""
    equal(out.get(f"{a}#dtype"), out.get(f"{b}#dtype"), what=f"{what} dtype")
    no_nan(out[a], what)
    close(out[a], out[b], rtol=0, atol=atol, what=what)
    equal(list(np.shape(out[a])), list(np.shape(out[b])), what=f"{what} shape")


# ---------------------------------------------------------------- hand-checked values


@check("hand_checked_two_components")
def hand_checked_two_components(out, ref):
    # differences d_i: (4, 3), (-2, 3), (1, 0); their mean is (1, 2), so the centred rows are
    # (3, 1), (-3, 1), (0, -2): C^T C = [[18, 0], [0, 6]] -> components e1 (18) and e2 (6), ratios 0.75 / 0.25.
    # All firsts are positive, so p_i = d_i: on e1 the projections 4, -2, 1 give accuracy 2/3 (flipping: 1/3);
    # on e2 the projections 3, 3, 0 give 2/3 (0 is a miss; flipping: 0).
    for key in FIELDS:
        f64(out, key)
    close(out["directions"], np.array([[[1.0, 0.0], [0.0, 1.0]]]), atol=1e-12, rtol=0, what="directions")
    close(out["explained_variance_ratio"], np.array([[0.75, 0.25]]), atol=1e-12, rtol=0, what="ratios")
    close(out["pair_accuracy"], np.array([[2 / 3, 2 / 3]]), atol=1e-12, rtol=0, what="accuracy")


@check("hand_checked_orientation_flip")
def hand_checked_orientation_flip(out, ref):
    # differences (5, 1), (-3, -3), (1, -1): mean (1, -1), centred rows (4, 2), (-4, -2), (0, 0) -> one axis +-(2, 1)/sqrt(5).
    # Pair 3 has its positive stimulus second, so p = (5, 1), (-3, -3), (-1, 1): on (2, 1)/sqrt(5) the signs are
    # +, -, - (accuracy 1/3), so the direction is flipped to (-2, -1)/sqrt(5) with accuracy 2/3.
    f64(out, "directions")
    close(out["directions"], np.array([[[-0.894427190999916, -0.447213595499958]]]), atol=1e-12, rtol=0,
          what="directions")  # (-2, -1) / sqrt(5)
    close(out["explained_variance_ratio"], 1.0, rtol=0, atol=1e-12, what="ratio")
    close(out["pair_accuracy"], 2 / 3, rtol=0, atol=1e-12, what="accuracy")


@check("orientation_maximises_accuracy_even_below_one_half")
def below_one_half(out, ref):
    # first coordinates of the differences 2, 1, 0, 0, -1; the second coordinate is constant (3) so it vanishes
    # after centring and the only axis is e1. p_i = d_i: 2 hits, 2 zeros (misses), 1 miss -> +e1 has accuracy 0.4,
    # -e1 has 0.2, so +e1 is kept even though 0.4 < 0.5.
    f64(out, "directions")
    close(out["directions"], np.array([[[1.0, 0.0]]]), atol=1e-12, rtol=0, what="directions")
    close(out["pair_accuracy"], 0.4, rtol=0, atol=1e-12, what="accuracy")


# differences (3, 0), (-1, 0): the only axis is e1. With both firsts positive, +e1 and -e1 each separate one
# pair (accuracy 1/2); the mean projection on +e1 is (3 - 1) / 2 = 1 >= 0, so +e1 is chosen. With both firsts
# negative, p = (-3, 0), (1, 0) and the mean projection on +e1 is -1, so -e1 is chosen.
def _tie_break(out, expected: float) -> None:
    f64(out, "directions")
    close(out["directions"], np.array([[[expected, 0.0]]]), atol=1e-12, rtol=0, what="directions")
    equal(float(np.asarray(out["pair_accuracy"]).reshape(-1)[0]), 0.5, what="accuracy")


@check("orientation_tie_break_on_mean_projection?firsts_positive?")
def tie_break_positive(out, ref):
    _tie_break(out, 1.0)


@check("orientation_tie_break_on_mean_projection?firsts_negative?")
def tie_break_negative(out, ref):
    _tie_break(out, -1.0)


# ---------------------------------------------------------------- properties


@check("recovers_planted_direction")
def recovers_planted_direction(out, ref):
    d, concept = out["directions"], ref["concept"]  # the planted directions from the trusted reference run
    shape(out, "directions", (4, 1, 12))
    f64(out, "directions")  # the old test's float64 matmul with the planted direction required it
    for layer in (1, 3):
        cos = float(d[layer, 0] @ concept[layer])
        expect(cos > 0.98, f"layer {layer}: cosine with the planted direction {cos:.4f} <= 0.98 (or wrong sign)")
        equal(float(out["pair_accuracy"][layer, 0]), 1.0, what=f"layer {layer} accuracy")
        expect(out["explained_variance_ratio"][layer, 0] > 0.5, f"layer {layer}: top ratio <= 0.5")
    for layer in (0, 2):  # no concept there: the top component explains much less
        expect(out["explained_variance_ratio"][layer, 0] < 0.4, f"layer {layer}: top ratio >= 0.4 without a concept")


@check("orthonormal_components_and_sorted_ratios")
def orthonormal_components_and_sorted_ratios(out, ref):
    shape(out, "directions", (4, 5, 12))
    f64(out, "directions")
    d = out["directions"]
    gram = d @ np.swapaxes(d, 1, 2)
    close(gram, np.broadcast_to(np.eye(5), (4, 5, 5)), atol=1e-10, rtol=0, what="gram matrix")
    r = out["explained_variance_ratio"]
    expect(bool((r[:, :-1] >= r[:, 1:]).all()), "explained variance ratios not sorted in decreasing order")
    expect(bool((r.sum(axis=1) <= 1 + 1e-12).all()), "explained variance ratios sum above 1")
    f64(out, "full_ratio")
    expect(np.ndim(out["full_ratio"]) == 2, "full ratio: not (num_layers, n_components)")
    close(out["full_ratio"].sum(axis=1), np.ones(4), atol=1e-12, rtol=0, what="ratios of all 12 components")


@check("invariant_to_shared_offsets_scale_and_pair_order")
def invariant(out, ref):
    # a shared offset cancels in the differences; a positive scale changes nothing but magnitudes; the order of
    # the pairs is irrelevant; swapping the members and their labels changes nothing
    for other in ("offset", "scaled", "permuted", "swapped"):
        same(out, f"{other}.directions", "base.directions", 1e-9, f"{other}: directions")
        same(out, f"{other}.explained_variance_ratio", "base.explained_variance_ratio", 1e-12, f"{other}: ratios")
        same(out, f"{other}.pair_accuracy", "base.pair_accuracy", 0.0, f"{other}: accuracy")


@check("labels_only_orient")
def labels_only_orient(out, ref):
    equal(out.get("b.directions#dtype"), out.get("a.directions#dtype"), what="directions dtype")
    no_nan(out["b.directions"], "directions flipped")
    close(out["b.directions"], -np.asarray(out["a.directions"]), atol=1e-12, rtol=0, what="directions flipped")
    same(out, "b.explained_variance_ratio", "a.explained_variance_ratio", 0.0, "ratios")


@check("single_layer_and_low_precision_inputs")
def single_layer_and_low_precision_inputs(out, ref):
    shape(out, "a", (1, 1, 12))
    f64(out, "a")
    same(out, "a", "b", 1e-12, "float32 inputs vs the same values in float64")


@check("reading_vectors_of_the_tiny_model_generalise")
def tiny_model(out, ref):
    acc = out["heldout_accuracy"]
    expect(isinstance(acc, np.ndarray) and acc.ndim == 2, "held-out accuracy: not a (layers, components) array")
    expect(bool((acc[:, 0] >= 0.9).all()), f"held-out accuracy below 0.9: {acc[:, 0]}")
    expect(isinstance(out["ratio_sum"], float) and not math.isnan(out["ratio_sum"]), "explained variance is NaN")


@check("accepts_components_up_to_pairs_minus_one")
def accepts_components(out, ref):
    shape(out, "directions", (2, 2, 5))
