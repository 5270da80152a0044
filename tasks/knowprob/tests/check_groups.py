"""Trusted checks for knowprob/5 (never enter the sandbox): hand-checked values and the table's properties, on
the outputs probe_groups.py emitted. The default comparison with the reference's outputs has already passed."""

from lmrbench.checks import check, equal, expect

COLUMNS = [
    "group_a", "group_b",
    "shared_subjects", "shared_objects", "shared_entities",
    "n_shared_subjects", "n_shared_objects", "n_shared_entities",
]
LIST_COLUMNS = ("shared_subjects", "shared_objects", "shared_entities")


def items(out, key):
    """The elements of an emitted list (the probe runner flattens a list to `key.0`, `key.1`, ...)."""
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def records(out, prefix=""):
    """The old `_records`: the rows as dicts; the shared_* cells must be lists and the n_* cells integers."""
    recs = []
    for i in range(len(items(out, f"{prefix}records"))):
        row = f"{prefix}records.{i}."
        expect(all(items(out, f"{prefix}is_list.{i}")), f"row {i}: a shared_* cell is not a list")
        rec = {k: items(out, row + k) if k in LIST_COLUMNS else out[row + k] for k in COLUMNS}
        for k in ("n_shared_subjects", "n_shared_objects", "n_shared_entities"):
            expect(isinstance(rec[k], (int, float)) and int(rec[k]) == rec[k], f"row {i}: {k} is not an integer")
            rec[k] = int(rec[k])
        recs.append(rec)
    return recs


def check_frame(out, prefix=""):
    """The old `_check_frame`: a DataFrame with the documented columns and a fresh RangeIndex."""
    equal(out[f"{prefix}is_frame"], True, what="returns a DataFrame")
    equal(items(out, f"{prefix}columns"), COLUMNS, what="columns")
    equal((out[f"{prefix}index_type"], out[f"{prefix}index_start"], out[f"{prefix}index_step"]),
          ("RangeIndex", 0, 1), what="index (a RangeIndex from 0 by 1)")


@check("matches_reference_on_random_tables")
def matches_reference_on_random_tables(out, ref):
    n = ref["n_tables"]
    expect(n >= 20, f"only {n} fixture tables")
    for i in range(n):
        check_frame(out, f"t{i}.output.")
        records(out, f"t{i}.output.")


def empty_pair(a, b):
    return {"group_a": a, "group_b": b, "shared_subjects": [], "shared_objects": [], "shared_entities": [],
            "n_shared_subjects": 0, "n_shared_objects": 0, "n_shared_entities": 0}


@check("hand_checked_example")
def hand_checked_example(out, ref):
    check_frame(out)
    # groups sorted: language < location < profession; pairs (a, b) with a < b.
    # language: S={france, rome}, O={french, italian}; location: S={paris, rome}, O={france, italy};
    # profession: S={ann}, O={painter}.
    # (language, location): shared subjects {rome} ("Rome " normalises to "rome"), no shared
    # object, shared entities {france (subject vs object), rome}.
    equal(records(out), [
        {"group_a": "language", "group_b": "location",
         "shared_subjects": ["rome"], "shared_objects": [], "shared_entities": ["france", "rome"],
         "n_shared_subjects": 1, "n_shared_objects": 0, "n_shared_entities": 2},
        empty_pair("language", "profession"),
        empty_pair("location", "profession"),
    ], what="records")


@check("object_column_choice")
def object_column_choice(out, ref):
    equal(records(out, "default.")[0]["shared_objects"], [], what="shared objects (parametric objects)")
    row = records(out, "gold_objects.")[0]
    equal(row["shared_objects"], ["z"], what="shared objects (gold objects)")
    equal(row["shared_entities"], ["z"], what="shared entities (gold objects)")


@check("custom_column_names")
def custom_column_names(out, ref):
    equal(records(out), [
        {"group_a": "a", "group_b": "b",
         "shared_subjects": ["new york"], "shared_objects": ["usa"],
         "shared_entities": ["new york", "usa"],
         "n_shared_subjects": 1, "n_shared_objects": 1, "n_shared_entities": 2},
    ], what="records")


@check("missing_and_blank_values_are_ignored")
def missing_and_blank_values_are_ignored(out, ref):
    equal(records(out), [empty_pair("g1", "g2")], what="records")


@check("fewer_than_two_groups")
def fewer_than_two_groups(out, ref):
    for prefix in ("one_group.", "empty."):
        equal(len(items(out, f"{prefix}records")), 0, what=f"{prefix} rows")
        equal(items(out, f"{prefix}columns"), COLUMNS, what=f"{prefix} columns")


@check("pairs_count_order_and_row_order_invariance")
def pairs_count_order_and_row_order_invariance(out, ref):
    recs = records(out, "result.")
    equal(len(recs), 6, what="pairs (C(4, 2) unordered pairs, each once)")
    pairs = [(r["group_a"], r["group_b"]) for r in recs]
    expect(pairs == sorted(pairs), "pairs not in (group_a, group_b) order")
    expect(all(a < b for a, b in pairs), "a pair with group_a >= group_b")
    # the same frame (values, dtypes, index) from the shuffled rows
    keys = sorted(k.removeprefix("frame.") for k in out if k.startswith("frame."))
    equal(keys, sorted(k.removeprefix("shuffled_frame.") for k in out if k.startswith("shuffled_frame.")),
          what="shuffled rows: frame layout")
    for k in keys:
        equal(out[f"shuffled_frame.{k}"], out[f"frame.{k}"], what=f"shuffled rows: {k}")
    # counts agree with the lists, and subjects/objects shared are entities shared
    for r in recs:
        equal(r["n_shared_subjects"], len(r["shared_subjects"]), what="n_shared_subjects")
        equal(r["n_shared_objects"], len(r["shared_objects"]), what="n_shared_objects")
        equal(r["n_shared_entities"], len(r["shared_entities"]), what="n_shared_entities")
        expect(set(r["shared_subjects"]) | set(r["shared_objects"]) <= set(r["shared_entities"]),
               "a shared subject or object is not a shared entity")
        expect(r["shared_entities"] == sorted(r["shared_entities"]), "shared entities not sorted")
