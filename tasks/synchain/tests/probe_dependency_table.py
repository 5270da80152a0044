"""Probe for synchain/1: `format_dependency_table` in synchain/syntax.py. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox) unless the case
says compare="none"; the trusted checks in check_dependency_table.py hold the hand-checked tables and the layout
properties. One case per old pytest test (tests/test_dependency_table.py before the port)."""
import json
from pathlib import Path

from lmrbench_probe import case
from synchain.parse import EXAMPLES, DependencyParse
from synchain.syntax import format_dependency_table

CASES = json.loads((Path(__file__).parent / "fixtures" / "table_cases.json").read_text(encoding="utf-8"))

FOOD = DependencyParse(
    tokens=["The", "food", "was", "great", "."],
    heads=[1, 2, 2, 2, 2],
    deps=["det", "nsubj", "ROOT", "acomp", "punct"],
    pos=["DET", "NOUN", "AUX", "ADJ", "PUNCT"],
)


def table_of(k: int) -> str:
    c = CASES[k]
    return format_dependency_table(DependencyParse(c["tokens"], c["heads"], c["deps"], c["pos"]),
                                   skip_punct=c["skip_punct"])


# ---------------------------------------------------------------- hand-checked tables (literals in the check file)


@case(compare="exact")
def hand_checked_table():
    return {"table": format_dependency_table(FOOD)}


@case(compare="exact")
def hand_checked_skip_punct():
    return {"table": format_dependency_table(FOOD, skip_punct=True)}


@case(compare="exact")
def hand_checked_wide_cells_and_late_root():
    parse = DependencyParse(["Absolutely", "wonderful", "ambience", "overall"], [1, 2, 2, 2],
                            ["advmod", "amod", "ROOT", "advmod"], ["ADV", "ADJ", "NOUN", "ADV"])
    return {"table": format_dependency_table(parse)}


@case(compare="exact")
def single_token():
    return {"table": format_dependency_table(DependencyParse(["Wow"], [0], ["ROOT"], ["INTJ"]))}


@case(compare="none")  # the old test checked some lines only: the check file does the same
def long_sentence_widens_the_id_columns():
    n = 120
    parse = DependencyParse([f"w{i}" for i in range(n)], [0] + list(range(n - 1)), ["ROOT"] + ["dep"] * (n - 1),
                            ["X"] * n)
    return {"table": format_dependency_table(parse)}


# ---------------------------------------------------------------- differential (the reference's tables)


@case(params=range(len(CASES)), compare="exact")
def matches_reference(k):
    return {"table": table_of(k)}


# ---------------------------------------------------------------- properties (check file; `k` picks the fixture)


@case(params=range(len(CASES)), compare="exact", outputs={"table": {"compare": "none"}})
def columns_are_aligned_and_lines_trimmed(k):
    return {"k": k, "table": table_of(k)}


@case(params=range(len(CASES)), compare="exact", outputs={"table": {"compare": "none"}})
def round_trip(k):
    return {"k": k, "table": table_of(k)}


@case(compare="exact", outputs={"tables*": {"compare": "none"}})
def repository_examples_render():
    return {"n_tokens": [len(ex.parse.tokens) for ex in EXAMPLES],
            "tables": [format_dependency_table(ex.parse) for ex in EXAMPLES]}


# ---------------------------------------------------------------- invalid parses (the reference raises ValueError)

INVALID = [
    ([], [], [], []),  # empty
    (["a", "b"], [0, 0], ["ROOT"], ["X", "X"]),  # length mismatch
    (["a", "b"], [0], ["ROOT", "x"], ["X", "X"]),  # length mismatch
    (["a", "b"], [0, 0], ["ROOT", "x"], ["X"]),  # length mismatch
    (["a", "b"], [0, 2], ["ROOT", "x"], ["X", "X"]),  # head out of range
    (["a", "b"], [0, -1], ["ROOT", "x"], ["X", "X"]),  # negative head
    (["a", "b"], [0, 1], ["ROOT", "ROOT"], ["X", "X"]),  # two roots
    (["a", "b"], [1, 0], ["x", "y"], ["X", "X"]),  # no root
    (["a", "b", "c"], [0, 2, 1], ["ROOT", "x", "y"], ["X", "X", "X"]),  # a cycle beside the root
    (["a", "b", "c", "d"], [0, 2, 3, 1], ["ROOT", "x", "y", "z"], ["X"] * 4),  # a longer cycle
]


@case(params=range(len(INVALID)), ids=["empty", "short_deps", "short_heads", "short_pos", "head_out_of_range",
                                       "negative_head", "two_roots", "no_root", "cycle", "longer_cycle"])
def rejects_invalid_parses(i):
    return {"table": format_dependency_table(DependencyParse(*INVALID[i]))}
