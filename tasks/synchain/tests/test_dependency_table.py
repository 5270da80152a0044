"""Hidden tests for synchain.syntax.format_dependency_table."""
import json
from pathlib import Path

import pytest

from synchain.parse import EXAMPLES, DependencyParse
from synchain.syntax import format_dependency_table

CASES = json.loads((Path(__file__).parent / "fixtures" / "table_cases.json").read_text(encoding="utf-8"))

FOOD = DependencyParse(
    tokens=["The", "food", "was", "great", "."],
    heads=[1, 2, 2, 2, 2],
    deps=["det", "nsubj", "ROOT", "acomp", "punct"],
    pos=["DET", "NOUN", "AUX", "ADJ", "PUNCT"],
)


# ---------------------------------------------------------------- hand-checked tables


def test_hand_checked_table():
    # widths: ID max(2, 1) = 2, TOKEN max(5, 5 "great") = 5, POS max(3, 5 "PUNCT") = 5, HEAD 4,
    # HEAD_TOKEN 10, DEPREL max(6, 5) = 6; ID and HEAD right-aligned; "was" is the root (head 2 == its index)
    expected = "\n".join([
        "ID  TOKEN  POS    HEAD  HEAD_TOKEN  DEPREL",
        "--  -----  -----  ----  ----------  ------",
        " 1  The    DET       2  food        det",
        " 2  food   NOUN      3  was         nsubj",
        " 3  was    AUX       0  ROOT        ROOT",
        " 4  great  ADJ       3  was         acomp",
        " 5  .      PUNCT     3  was         punct",
    ])
    assert format_dependency_table(FOOD) == expected


def test_hand_checked_skip_punct():
    # without the "." row the POS column shrinks to max(3, 4 "NOUN") = 4
    expected = "\n".join([
        "ID  TOKEN  POS   HEAD  HEAD_TOKEN  DEPREL",
        "--  -----  ----  ----  ----------  ------",
        " 1  The    DET      2  food        det",
        " 2  food   NOUN     3  was         nsubj",
        " 3  was    AUX      0  ROOT        ROOT",
        " 4  great  ADJ      3  was         acomp",
    ])
    assert format_dependency_table(FOOD, skip_punct=True) == expected


def test_hand_checked_wide_cells_and_late_root():
    parse = DependencyParse(["Absolutely", "wonderful", "ambience", "overall"], [1, 2, 2, 2],
                            ["advmod", "amod", "ROOT", "advmod"], ["ADV", "ADJ", "NOUN", "ADV"])
    # TOKEN width 10 ("Absolutely"), POS width max(3, 4 "NOUN") = 4, HEAD_TOKEN width max(10, 9) = 10,
    # DEPREL width 6; the root is token 3 (head 2 == its 0-based index)
    expected = "\n".join([
        "ID  TOKEN       POS   HEAD  HEAD_TOKEN  DEPREL",
        "--  ----------  ----  ----  ----------  ------",
        " 1  Absolutely  ADV      2  wonderful   advmod",
        " 2  wonderful   ADJ      3  ambience    amod",
        " 3  ambience    NOUN     0  ROOT        ROOT",
        " 4  overall     ADV      3  ambience    advmod",
    ])
    assert format_dependency_table(parse) == expected


def test_single_token():
    parse = DependencyParse(["Wow"], [0], ["ROOT"], ["INTJ"])
    assert format_dependency_table(parse) == (
        "ID  TOKEN  POS   HEAD  HEAD_TOKEN  DEPREL\n"
        "--  -----  ----  ----  ----------  ------\n"
        " 1  Wow    INTJ     0  ROOT        ROOT"
    )


def test_long_sentence_widens_the_id_columns():
    n = 120
    parse = DependencyParse([f"w{i}" for i in range(n)], [0] + list(range(n - 1)), ["ROOT"] + ["dep"] * (n - 1),
                            ["X"] * n)
    lines = format_dependency_table(parse).split("\n")
    assert lines[0].startswith(" ID  TOKEN")  # ID width 3 ("120"), header right-aligned
    assert lines[1].startswith("---  ----")
    assert lines[2].startswith("  1  w0  ")
    assert lines[-1] == "120  w119   X     119  w118        dep"


# ---------------------------------------------------------------- differential (fixtures from the reference)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_matches_reference(k):
    c = CASES[k]
    parse = DependencyParse(c["tokens"], c["heads"], c["deps"], c["pos"])
    assert format_dependency_table(parse, skip_punct=c["skip_punct"]) == c["table"]


# ---------------------------------------------------------------- properties


@pytest.mark.parametrize("k", range(len(CASES)))
def test_columns_are_aligned_and_lines_trimmed(k):
    c = CASES[k]
    table = format_dependency_table(DependencyParse(c["tokens"], c["heads"], c["deps"], c["pos"]),
                                    skip_punct=c["skip_punct"])
    lines = table.split("\n")
    assert not table.endswith("\n") and all(line == line.rstrip() for line in lines)
    rule = lines[1]
    starts = [i for i in range(len(rule)) if rule[i] == "-" and (i == 0 or rule[i - 1] == " ")]
    assert len(starts) == 6
    for line in lines[2:]:
        # every left-aligned cell starts at its column's start, every right-aligned one ends at its column's end
        for col in (1, 2, 4, 5):
            assert line[starts[col]] != " " and line[starts[col] - 1] == " "
        for col in (0, 3):
            end = starts[col] + rule[starts[col]:].index(" ") if " " in rule[starts[col]:] else len(rule)
            assert line[end - 1] != " " and (end == len(line) or line[end] == " ")


@pytest.mark.parametrize("k", range(len(CASES)))
def test_round_trip(k):
    c = CASES[k]
    table = format_dependency_table(DependencyParse(c["tokens"], c["heads"], c["deps"], c["pos"]),
                                    skip_punct=c["skip_punct"])
    rows = [line.split() for line in table.split("\n")[2:]]
    keep = [i for i in range(len(c["tokens"])) if not (c["skip_punct"] and c["pos"][i] == "PUNCT")]
    assert [int(r[0]) for r in rows] == [i + 1 for i in keep]
    for r, i in zip(rows, keep):
        h = c["heads"][i]
        assert r[1] == c["tokens"][i] and r[2] == c["pos"][i] and r[5] == c["deps"][i]
        assert int(r[3]) == (0 if h == i else h + 1)
        assert r[4] == ("ROOT" if h == i else c["tokens"][h])


def test_repository_examples_render():
    for ex in EXAMPLES:
        lines = format_dependency_table(ex.parse).split("\n")
        assert len(lines) == len(ex.parse.tokens) + 2


# ---------------------------------------------------------------- invalid parses


@pytest.mark.parametrize("tokens,heads,deps,pos", [
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
])
def test_rejects_invalid_parses(tokens, heads, deps, pos):
    with pytest.raises(ValueError):
        format_dependency_table(DependencyParse(tokens, heads, deps, pos))
