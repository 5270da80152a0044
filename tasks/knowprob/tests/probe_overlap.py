"""Probe for knowprob/2: jaro_winkler_similarity and drop_subject_object_overlap. Runs in the sandbox; emits
outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_overlap.py add hand-checked values and the measure's and the filter's properties."""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from knowprob.overlap import drop_subject_object_overlap, jaro_winkler_similarity
from knowprob_emit import frame, plain
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
SCORE = "subject_object_similarity"
JW = dict(rtol=0, atol=1e-12)
# frames exactly, except the scores (1e-12) and the score column's dtype (any float: the check)
FRAMES = dict(compare="exact", outputs={f"*values.{SCORE}*": {"compare": "close", "rtol": 0, "atol": 1e-12},
                                        f"*dtypes.{SCORE}": {"compare": "none"},
                                        "*_jw": {"compare": "close", "rtol": 0, "atol": 1e-12}})
HAND_VALUES = [("MARTHA", "MARHTA"), ("DIXON", "DICKSONX"), ("abcdef", "bcadef"), ("ab", "ba"),
               ("abcdefgh", "abcdefgx"), ("", ""), ("abc", ""), ("", "x"), ("same", "same"), ("abc", "ABC")]


def _load():
    return json.loads((FIXTURES / "overlap.json").read_text())


def jw_values(pairs, **kwargs) -> np.ndarray:
    return np.array([float(jaro_winkler_similarity(a, b, **kwargs)) for a, b in pairs], dtype=np.float64)


# ----------------------------------------------------------------------------- Jaro-Winkler
@case(**JW)
def jaro_winkler_matches_reference_on_random_pairs():
    pairs = _load()["jw_pairs"]
    return {"jw": np.array([float(jaro_winkler_similarity(p["a"], p["b"], prefix_weight=p["prefix_weight"],
                                                          max_prefix=p["max_prefix"])) for p in pairs])}


@case(**JW)
def jaro_winkler_default_prefix_parameters():
    # default prefix_weight = 0.1 and max_prefix = 4 (checked on pairs using them)
    pairs = [(p["a"], p["b"]) for p in _load()["jw_pairs"] if p["prefix_weight"] == 0.1 and p["max_prefix"] == 4]
    return {"explicit": jw_values(pairs, prefix_weight=0.1, max_prefix=4), "defaults": jw_values(pairs)}


@case(params=HAND_VALUES, ids=[f"{a}-{b}" for a, b in HAND_VALUES], **JW)
def jaro_winkler_hand_values(pair):
    return {"a": pair[0], "b": pair[1], "jw": plain(jaro_winkler_similarity(*pair))}


@case(**JW)
def jaro_winkler_custom_prefix_hand_value():
    return {"capped": plain(jaro_winkler_similarity("MARTHA", "MARHTA", prefix_weight=0.2, max_prefix=2)),
            "no_prefix": plain(jaro_winkler_similarity("MARTHA", "MARHTA", prefix_weight=0.1, max_prefix=0))}


@case(**JW)
def jaro_winkler_properties():
    pairs = [(p["a"], p["b"]) for p in _load()["jw_pairs"][:300]]
    return {"is_float": [isinstance(jaro_winkler_similarity(a, b), float) for a, b in pairs],
            "s": jw_values(pairs), "reversed": jw_values([(b, a) for a, b in pairs]),
            "self": jw_values([(a, a) for a, _ in pairs]), "no_prefix": jw_values(pairs, max_prefix=0)}


# ----------------------------------------------------------------------------- filter
def _run_table(c, **kwargs) -> dict:
    """The input after the call (it must be untouched) and the output, as data."""
    df = pd.DataFrame(c["rows"], index=c["index"])
    out = drop_subject_object_overlap(df, c["threshold"], **kwargs)
    return {"input": frame(df), "output": frame(out)}


@case(**FRAMES)
def filter_matches_reference_on_random_tables():
    tables = _load()["tables"]
    return {"n_tables": len(tables), **{f"t{i}": _run_table(c) for i, c in enumerate(tables)}}


@case(**FRAMES)
def filter_custom_columns():
    return _run_table(_load()["custom_columns"], subject_col="s", object_col="o")


@case(**FRAMES)
def filter_hand_checked_examples():
    df = pd.DataFrame({
        "subject": ["Valor Motors", "Kestin", "Martha Stewart", "  VALOR   motors", "Valor"],
        "parametric_object": ["Valor", "Valor", "MARHTA", "valor", "valor"],
    }, index=[10, 11, 12, 13, 14])
    return {"at_0.97": frame(drop_subject_object_overlap(df, 0.97)),
            "at_0.96": frame(drop_subject_object_overlap(df, 0.96))}


@case(**FRAMES)
def filter_threshold_is_inclusive():
    df = pd.DataFrame({"subject": ["Valor", "Kestin Valor", "Kestin"],
                       "parametric_object": ["Valor", "valor", "Valor"]})
    return {"at_1": frame(drop_subject_object_overlap(df, 1.0)), "at_0": frame(drop_subject_object_overlap(df, 0.0))}


@case(**FRAMES)
def filter_score_is_max_over_full_string_and_words():
    df = pd.DataFrame({"subject": ["Selnu Kestin Maro", "Kestin Maro"],
                       "parametric_object": ["kestin maro", "Selnu"]})
    out = drop_subject_object_overlap(df, 1.01)  # keep everything, inspect scores
    # the candidate's own Jaro-Winkler values of the full subject and of each word against the object
    return {"output": frame(out),
            "row0_jw": jw_values([("selnu kestin maro", "kestin maro")]
                                 + [(w, "kestin maro") for w in ["selnu", "kestin", "maro"]]),
            "row1_jw": jw_values([("kestin maro", "selnu")] + [(w, "selnu") for w in ["kestin", "maro"]])}


@case(**FRAMES)
def filter_default_threshold_and_columns():
    df = pd.DataFrame({"subject": ["Valor Marnu", "Kestin"], "parametric_object": ["Marnus", "Dosel"],
                       "relation": ["P176", "P17"]})
    return frame(drop_subject_object_overlap(df))


@case(**FRAMES)
def filter_empty_table():
    df = pd.DataFrame({"subject": pd.Series([], dtype=object),
                       "parametric_object": pd.Series([], dtype=object)})
    return frame(drop_subject_object_overlap(df, 0.9))
