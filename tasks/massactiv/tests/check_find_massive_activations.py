"""Trusted checks for massactiv/1 (never enter the sandbox): hand-checked values and the detector's
properties, on the outputs probe_find_massive_activations.py emitted. The default comparison with the
reference's outputs has already passed."""
import numpy as np

from lmrbench.checks import check, close, equal, expect


def keys(out, prefix=""):
    """The records' (layer, batch, token, dim) tuples, in the order returned."""
    return [tuple(int(x) for x in row) for row in np.asarray(out[f"{prefix}index"]).reshape(-1, 4)]


def values(out, prefix=""):
    return [float(x) for x in out[f"{prefix}value"]]


def ratios(out, prefix=""):
    return [float(x) for x in out[f"{prefix}ratio"]]


def full(out, prefix=""):
    """Whole records (layer, batch, token, dim, value, ratio)."""
    return [(*k, v, r) for k, v, r in zip(keys(out, prefix), values(out, prefix), ratios(out, prefix), strict=True)]


# ---------------------------------------------------------------- hand-checked values


@check("hand_checked_single_sequence")
def hand_checked_single_sequence(out, ref):
    # magnitudes sorted: 0.25 0.5 0.5 0.75 1 1.5 2 300 -> median = (0.75 + 1) / 2 = 0.875
    # -300: |h| = 300 > 100 and 300 >= 300 * 0.875 = 262.5 -> massive; ratio = 300 / 0.875 = 2400 / 7
    equal(keys(out, "r300."), [(0, 0, 1, 0)], what="records (ratio threshold 300)")
    equal(values(out, "r300."), [-300.0], what="value")
    close(ratios(out, "r300."), [342.857142857142857], rtol=1e-12, what="ratio (2400 / 7)")
    # 300 < 400 * 0.875 = 350 -> not massive any more
    equal(keys(out, "r400."), [], what="records (ratio threshold 400)")
    # 300 is not above an absolute threshold of 300 (strict inequality)
    equal(keys(out, "abs300."), [], what="records (absolute threshold 300)")


@check("even_count_median_is_midpoint")
def even_count_median_is_midpoint(out, ref):
    # median of 0.5 1.5 2.5 400 = (1.5 + 2.5) / 2 = 2, so the ratio of 400 is exactly 200
    equal(keys(out, "r200."), [(0, 0, 0, 3)], what="records (ratio threshold 200)")
    equal(ratios(out, "r200."), [200.0], what="ratio")
    # 400 < 250 * 2 = 500: the lower median (1.5) would wrongly accept it, the upper one (2.5) reject the line above
    equal(keys(out, "r250."), [], what="records (ratio threshold 250)")


@check("odd_count_median")
def odd_count_median(out, ref):
    # median of 0.5 1 2 3 250 = 2 -> ratio 125
    equal(keys(out, "r125."), [(0, 0, 0, 3)], what="records (ratio threshold 125)")
    equal(values(out, "r125."), [-250.0], what="value")
    equal(ratios(out, "r125."), [125.0], what="ratio")
    equal(keys(out, "r125.5."), [], what="records (ratio threshold 125.5)")


@check("threshold_boundaries")
def threshold_boundaries(out, ref):
    # magnitudes 0.5 0.5 0.5 100: median (0.5 + 0.5) / 2 = 0.5, ratio of 100 = 200
    equal(keys(out, "abs100."), [], what="100 is not > 100")
    equal(keys(out, "abs99.5_r200."), [(0, 0, 1, 1)], what="100 >= 200 * 0.5")
    equal(keys(out, "abs99.5_r200.5."), [], what="100 < 200.5 * 0.5")


@check("default_thresholds_are_100_and_1000")
def default_thresholds(out, ref):
    # median of 0.001 (x5) and 100.5 is 0.001: ratio 100500, and 100.5 > 100 -> massive with the defaults
    equal(keys(out, "above."), [(0, 0, 1, 1)], what="records with the default thresholds")
    # median 0.125 and 125 / 0.125 = 1000 exactly: reaches the default ratio threshold
    equal(keys(out, "ratio_exact."), [(0, 0, 1, 1)], what="records at ratio exactly 1000")
    equal(ratios(out, "ratio_exact."), [1000.0], what="ratio")


@check("median_per_sequence_not_per_batch")
def median_per_sequence_not_per_batch(out, ref):
    # sequence 0: median 1 -> 500 is massive (ratio 500); sequence 1: median 200, nothing reaches 100 * 200.
    # A median pooled over the batch would be 200 and hide the activation of sequence 0.
    equal(keys(out), [(0, 0, 0, 3)], what="records")
    equal(ratios(out), [500.0], what="ratio")


@check("median_over_the_whole_sequence_not_per_token")
def median_over_the_whole_sequence(out, ref):
    # magnitudes 2 2 2 150 150 150 -> median (2 + 150) / 2 = 76; 150 >= 1.5 * 76 = 114 -> token 0 is massive,
    # ratio 150 / 76 = 75 / 38. A median taken per token (150 for token 0) would find nothing.
    equal(keys(out), [(0, 0, 0, 0), (0, 0, 0, 1), (0, 0, 0, 2)], what="records")
    equal(values(out), [150.0, -150.0, 150.0], what="values")
    close(ratios(out), [1.973684210526315789] * 3, rtol=1e-12, what="ratios (75 / 38)")


@check("negative_activations_keep_sign")
def negative_activations_keep_sign(out, ref):
    # median of 0.1 0.1 0.2 0.2 0.3 4000 = 0.2 -> ratio 20000
    equal(full(out), [(0, 0, 1, 0, -4000.0, 20000.0)], what="records")
    equal(out.get("fields.0"), 6, what="fields of the record")
    equal(out["is_list"], True, what="a list is returned")


@check("zero_median_gives_infinite_ratio")
def zero_median_gives_infinite_ratio(out, ref):
    equal(keys(out, "zero_median."), [(0, 0, 1, 1)], what="records")
    equal(values(out, "zero_median."), [150.0], what="value")
    r = ratios(out, "zero_median.")[0]
    expect(np.isinf(r) and r > 0, f"ratio with a zero median is {r}, not +inf")
    equal(keys(out, "below_abs."), [], what="records below the absolute threshold")


@check("mask_excludes_padding_from_candidates_and_median")
def mask_excludes_padding(out, ref):
    # real tokens 1 and 2: magnitudes 2 2 300 0 0 0 -> median (0 + 2) / 2 = 1, so 300 has ratio 300.
    # Token 0 is padding: its 9000 is no candidate and its values are not in the median.
    equal(keys(out, "long_mask."), [(0, 0, 1, 2)], what="records (integer mask)")
    equal(ratios(out, "long_mask."), [300.0], what="ratio")
    equal(keys(out, "bool_mask."), [(0, 0, 1, 2)], what="records (boolean mask)")


@check("fully_padded_sequence_contributes_nothing")
def fully_padded_sequence(out, ref):
    equal(keys(out), [(0, 1, 1, 3)], what="records")
    equal(ratios(out), [1600.0], what="ratio (800 / median 0.5)")


# ---------------------------------------------------------------- differential


@check("matches_reference*")
def returns_a_list(out, ref):
    equal(out["is_list"], True, what="a list is returned")


@check("fixtures_exercise_the_interesting_cases")
def fixtures_exercise_the_interesting_cases(out, ref):
    # guards the fixtures themselves (the reference's run): detections, empty results, masks and every input form
    n = [int(x) for x in ref["counts"]]
    has_mask = [ref[f"has_mask.{i}"] for i in range(len(n))]
    as_list = [ref[f"as_list.{i}"] for i in range(len(n))]
    expect(sum(n) >= 40 and n.count(0) >= 3, f"fixtures: {sum(n)} records, {n.count(0)} empty results")
    expect(any(has_mask) and any(as_list) and not all(as_list), "fixtures miss a mask or an input form")
    expect(any(ref[f"any_negative.{i}"] for i in range(len(n))), "fixtures have no negative activation")


# ---------------------------------------------------------------- properties


@check("feature_permutation_equivariance")
def feature_permutation_equivariance(out, ref):
    inv = {int(p): i for i, p in enumerate(ref["perm"])}
    base = full(out, "base.")
    expected = sorted((r[0], r[1], r[2], inv[r[3]], r[4], r[5]) for r in base)
    equal(full(out, "permuted."), expected, what="records of the permuted features")
    expect(len(base) >= 3, f"only {len(base)} records")


@check("scale_equivariance")
def scale_equivariance(out, ref):
    equal(keys(out, "scaled."), keys(out, "base."), what="records of 4 h with 4 x the absolute threshold")
    equal(values(out, "scaled."), [4.0 * v for v in values(out, "base.")], what="values")
    close(ratios(out, "scaled."), ratios(out, "base."), rtol=1e-12, what="ratios")


@check("higher_ratio_threshold_gives_a_subset")
def higher_ratio_threshold_gives_a_subset(out, ref):
    expect(set(keys(out, "strict.")) < set(keys(out, "loose.")), "strict records are not a proper subset")


@check("padding_is_the_same_as_removing_tokens")
def padding_is_the_same_as_removing_tokens(out, ref):
    a = full(out, "unpadded.")
    equal(full(out, "padded."), a, what="records with padding")
    expect(len(a) >= 3, f"only {len(a)} records")


@check("sorted_and_typed_output")
def sorted_and_typed_output(out, ref):
    k = keys(out)
    expect(k == sorted(k) and len(k) >= 3, "records not sorted by (layer, batch, token, dim), or fewer than 3")
    for i in range(len(k)):
        equal(out[f"is_record.{i}"], True, what=f"record {i} is a MassiveActivation")
        equal(out[f"field_types.{i}"], "int,int,int,int,float,float", what=f"field types of record {i}")


@check("low_precision_and_grad_inputs")
def low_precision_and_grad_inputs(out, ref):
    h = ref["hidden"].astype(np.float64)  # bfloat16 values, exactly representable
    equal(values(out), [float(h[k]) for k in keys(out)], what="values (the bfloat16 activations)")
    expect(len(keys(out)) >= 3, "fewer than 3 records")


# ---------------------------------------------------------------- finds the planted effect


@check("finds_planted_activations_in_synthetic_states")
def finds_planted_in_synthetic_states(out, ref):
    expected = sorted([(l, b, 0, d) for l in (1, 2) for b in (0, 1) for d in (4, 9)] + [(3, b, 3, 1) for b in (0, 1)])
    equal(keys(out), expected, what="records")
    equal(values(out), [500.0] * 8 + [-800.0] * 2, what="values")


@check("finds_planted_activations_in_tiny_lm")
def finds_planted_in_tiny_lm(out, ref):
    expected = [(l, b, 0, d) for l in (1, 2, 3) for b in range(3) for d in (3, 11)]
    equal(keys(out), expected, what="records")
    expect(all(abs(v - 3000.0) < 30.0 for v in values(out)) and all(r > 1000.0 for r in ratios(out)),
           "values not within 30 of 3000, or ratios not above 1000")
