"""Trusted checks for knowprob/2 (never enter the sandbox): hand-checked values and the properties of the
Jaro-Winkler measure and of the overlap filter, on the outputs probe_overlap.py emitted. The default
comparison with the reference's outputs has already passed."""

import numpy as np

from lmrbench.checks import check, close, equal, expect

SCORE = "subject_object_similarity"

HAND_VALUES = {
    # |a|=|b|=6, window 6//2-1=2, m=6, matched sequences MARTHA / MARHTA differ at 2
    # positions -> t=1; jaro=(1+1+5/6)/3=17/18; prefix "MAR" l=3: 17/18+0.3*(1/18)=17.3/18
    ("MARTHA", "MARHTA"): 17.3 / 18,
    # window 8//2-1=3; X (pos 2) has no X within 3 of it in DICKSONX (X at 7); m=4 (D,I,O,N),
    # t=0; jaro=(4/5+4/8+1)/3=2.3/3; prefix "DI" l=2: 2.3/3+0.2*(0.7/3)=2.44/3
    ("DIXON", "DICKSONX"): 2.44 / 3,
    # window 2; matched sequences abcdef / bcadef differ at 3 positions -> t=1.5 (not 1);
    # jaro=(1+1+4.5/6)/3=11/12; no common prefix
    ("abcdef", "bcadef"): 11 / 12,
    # window 2//2-1=0: only same-position matches, none here
    ("ab", "ba"): 0.0,
    # window 3, m=7, t=0: jaro=(7/8+7/8+1)/3=11/12; common prefix 7 capped at 4:
    # 11/12+0.4*(1/12)=11.4/12
    ("abcdefgh", "abcdefgx"): 11.4 / 12,
    ("", ""): 1.0,
    ("abc", ""): 0.0,
    ("", "x"): 0.0,
    ("same", "same"): 1.0,
    # case-sensitive: no character in common
    ("abc", "ABC"): 0.0,
}


def items(out, key):
    """The elements of an emitted list (the probe runner flattens a list to `key.0`, `key.1`, ...)."""
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def column(out, prefix, name):
    return items(out, f"{prefix}values.{name}")


# ----------------------------------------------------------------------------- Jaro-Winkler


@check("jaro_winkler_matches_reference_on_random_pairs")
def jw_fixture_guard(out, ref):
    expect(len(ref["jw"]) >= 500, "fewer than 500 fixture pairs")


@check("jaro_winkler_default_prefix_parameters")
def jw_default_prefix_parameters(out, ref):
    # default prefix_weight = 0.1 and max_prefix = 4: the defaults give the reference's explicit values
    expect(len(ref["explicit"]) >= 400, "fewer than 400 fixture pairs with the default parameters")
    close(out["defaults"], ref["explicit"], rtol=0, atol=1e-12, what="default parameters")


@check("jaro_winkler_hand_values*")
def jw_hand_values(out, ref):
    pair = (ref["a"], ref["b"])
    expect(pair in HAND_VALUES, f"no hand value for {pair}")
    close(out["jw"], HAND_VALUES[pair], rtol=0, atol=1e-12, what=f"JW{pair}")


@check("jaro_winkler_custom_prefix_hand_value")
def jw_custom_prefix_hand_value(out, ref):
    # MARTHA/MARHTA: jaro 17/18, prefix 3 capped at 2, weight 0.2: 17/18+2*0.2/18 = 17.4/18
    close(out["capped"], 17.4 / 18, rtol=0, atol=1e-12, what="prefix capped at 2, weight 0.2")
    # no prefix bonus at all: plain Jaro
    close(out["no_prefix"], 17 / 18, rtol=0, atol=1e-12, what="max_prefix 0")


@check("jaro_winkler_properties")
def jw_properties(out, ref):
    s = out["s"]
    expect(all(items(out, "is_float")), "a similarity is not a float")
    expect(bool(np.all((s >= 0.0) & (s <= 1.0 + 1e-12))), "a similarity outside [0, 1]")
    # the measure is symmetric and maximal on identical strings
    close(s, out["reversed"], rtol=0, atol=1e-12, what="symmetry")
    equal(out["self"], np.ones_like(out["self"]), what="similarity of a string with itself")
    # the Winkler bonus never lowers the Jaro score
    expect(bool(np.all(s >= out["no_prefix"] - 1e-12)), "the prefix bonus lowers a score")


# ----------------------------------------------------------------------------- filter


def check_filter(out, prefix=""):
    """The old `_check`: a DataFrame, the input's columns plus a float score column, and the kept rows equal to
    the input's rows with those labels (the kept labels themselves are compared with the reference's)."""
    inp, res = f"{prefix}input.", f"{prefix}output."
    equal(out[f"{res}is_frame"], True, what="returns a DataFrame")
    columns = items(out, f"{inp}columns")
    equal(items(out, f"{res}columns"), columns + [SCORE], what="columns")
    expect(str(out[f"{res}dtypes.{SCORE}"]).startswith("float"), "the score column is not a float column")
    labels = items(out, f"{inp}index")
    kept = items(out, f"{res}index")
    equal(out[f"{res}index_dtype"], out[f"{inp}index_dtype"], what="index dtype")
    for name in columns:
        equal(out[f"{res}dtypes.{name}"], out[f"{inp}dtypes.{name}"], what=f"dtype of {name}")
        values = dict(zip(labels, column(out, inp, name), strict=True))
        equal(column(out, res, name), [values[k] for k in kept], what=f"kept rows, column {name}")


@check("filter_matches_reference_on_random_tables")
def filter_matches_reference_on_random_tables(out, ref):
    n = ref["n_tables"]
    expect(n >= 20, f"only {n} fixture tables")
    dropped = sum(len(items(ref, f"t{i}.input.index")) - len(items(ref, f"t{i}.output.index")) for i in range(n))
    expect(dropped > 20, f"the fixtures drop only {dropped} rows")  # the fixtures exercise both outcomes
    for i in range(n):
        check_filter(out, f"t{i}.")


@check("filter_custom_columns")
def filter_custom_columns(out, ref):
    check_filter(out)


@check("filter_hand_checked_examples")
def filter_hand_checked_examples(out, ref):
    # "Valor Motors"/"Valor": the word "valor" equals the object -> score 1.0, dropped.
    # "Kestin"/"valor": no character in common -> score 0.0, kept.
    # "Martha Stewart"/"MARHTA": best word "martha" vs "marhta" = 17.3/18 (see above), kept at 0.97.
    # "  VALOR   motors"/"valor": normalised to "valor motors" -> 1.0, dropped.
    # "Valor"/"valor": identical after case folding -> 1.0, dropped.
    equal(items(out, "at_0.97.index"), [11, 12], what="kept rows at 0.97")
    close(column(out, "at_0.97.", SCORE), [0.0, 17.3 / 18], rtol=0, atol=1e-12, what="scores")
    # same table at 0.96: the Martha row (0.9611) is now dropped too
    equal(items(out, "at_0.96.index"), [11], what="kept rows at 0.96")


@check("filter_threshold_is_inclusive")
def filter_threshold_is_inclusive(out, ref):
    # score exactly equal to the threshold drops the row (score >= threshold)
    equal(items(out, "at_1.index"), [2], what="kept rows at 1.0")
    equal(items(out, "at_0.index"), [], what="kept rows at 0.0 (every score is >= 0)")
    expect(SCORE in items(out, "at_0.columns"), "no score column in an empty result")


@check("filter_score_is_max_over_full_string_and_words")
def filter_score_is_max_over_full_string_and_words(out, ref):
    scores = column(out, "output.", SCORE)
    equal(len(scores), 2, what="rows kept at threshold 1.01")
    close(scores[0], max(out["row0_jw"]), rtol=0, atol=1e-12, what="row 0: max over full string and words")
    close(scores[1], max(out["row1_jw"]), rtol=0, atol=1e-12, what="row 1: max over full string and words")


@check("filter_default_threshold_and_columns")
def filter_default_threshold_and_columns(out, ref):
    # "marnu" vs "marnus": m=5, t=0, jaro=(1+5/6+1)/3=17/18; prefix 4: 17/18+0.4/18=17.4/18 >= 0.9
    equal(items(out, "index"), [1], what="kept rows")
    equal(column(out, "", "relation"), ["P17"], what="relation of the kept row")


@check("filter_empty_table")
def filter_empty_table(out, ref):
    equal(items(out, "index"), [], what="rows")
    equal(items(out, "columns"), ["subject", "parametric_object", SCORE], what="columns")
