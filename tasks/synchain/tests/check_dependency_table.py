"""Trusted checks for synchain/1 (never enter the sandbox): the hand-checked tables and the layout properties, on
the outputs probe_dependency_table.py emitted. The default comparison with the reference's outputs has passed."""
import json
from pathlib import Path

from lmrbench.checks import check, equal, expect

# the committed input fixtures (the sandbox gets a copy; this file reads the task's own)
CASES = json.loads((Path(__file__).parent / "fixtures" / "table_cases.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- hand-checked tables


@check("hand_checked_table")
def hand_checked_table(out, ref):
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
    equal(out["table"], expected, what="table")


@check("hand_checked_skip_punct")
def hand_checked_skip_punct(out, ref):
    # without the "." row the POS column shrinks to max(3, 4 "NOUN") = 4
    expected = "\n".join([
        "ID  TOKEN  POS   HEAD  HEAD_TOKEN  DEPREL",
        "--  -----  ----  ----  ----------  ------",
        " 1  The    DET      2  food        det",
        " 2  food   NOUN     3  was         nsubj",
        " 3  was    AUX      0  ROOT        ROOT",
        " 4  great  ADJ      3  was         acomp",
    ])
    equal(out["table"], expected, what="table")


@check("hand_checked_wide_cells_and_late_root")
def hand_checked_wide_cells_and_late_root(out, ref):
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
    equal(out["table"], expected, what="table")


@check("single_token")
def single_token(out, ref):
    equal(out["table"], (
        "ID  TOKEN  POS   HEAD  HEAD_TOKEN  DEPREL\n"
        "--  -----  ----  ----  ----------  ------\n"
        " 1  Wow    INTJ     0  ROOT        ROOT"
    ), what="table")


def _lines(out) -> list[str]:
    table = out["table"]
    expect(isinstance(table, str), f"the table is not a string: {str(table)[:80]!r}")
    return table.split("\n")


@check("long_sentence_widens_the_id_columns")
def long_sentence(out, ref):
    lines = _lines(out)
    expect(lines[0].startswith(" ID  TOKEN"), "ID width 3 (\"120\"), header right-aligned")
    expect(lines[1].startswith("---  ----"), "rule of the 3-wide ID column")
    expect(lines[2].startswith("  1  w0  "), "first row")
    equal(lines[-1], "120  w119   X     119  w118        dep", what="last row")


# ---------------------------------------------------------------- properties


def _column_end(rule: str, start: int) -> int:
    return start + rule[start:].index(" ") if " " in rule[start:] else len(rule)


@check("columns_are_aligned_and_lines_trimmed*")  # not "[*]": fnmatch reads [*] as a class
def columns_aligned(out, ref):
    lines = _lines(out)
    expect(not out["table"].endswith("\n") and all(line == line.rstrip() for line in lines),
           "a final newline or trailing spaces")
    expect(len(lines) >= 2, "no rule line")
    rule = lines[1]
    starts = [i for i in range(len(rule)) if rule[i] == "-" and (i == 0 or rule[i - 1] == " ")]
    equal(len(starts), 6, what="number of columns in the rule")
    for line in lines[2:]:
        # every left-aligned cell starts at its column's start, every right-aligned one ends at its column's end
        for col in (1, 2, 4, 5):
            expect(starts[col] < len(line) and line[starts[col]] != " " and line[starts[col] - 1] == " ",
                   f"column {col} not left-aligned in {line!r}")
        for col in (0, 3):
            end = _column_end(rule, starts[col])
            expect(0 < end <= len(line) and line[end - 1] != " " and (end == len(line) or line[end] == " "),
                   f"column {col} not right-aligned in {line!r}")


@check("round_trip*")
def round_trip(out, ref):
    c = CASES[ref["k"]]  # the fixture index from the trusted reference run
    rows = [line.split() for line in _lines(out)[2:]]
    keep = [i for i in range(len(c["tokens"])) if not (c["skip_punct"] and c["pos"][i] == "PUNCT")]
    expect(all(len(r) == 6 for r in rows), "a row without 6 cells")
    equal([int(r[0]) for r in rows], [i + 1 for i in keep], what="IDs")
    for r, i in zip(rows, keep, strict=True):
        h = c["heads"][i]
        expect(r[1] == c["tokens"][i] and r[2] == c["pos"][i] and r[5] == c["deps"][i], f"row {r} != token {i}")
        equal(int(r[3]), 0 if h == i else h + 1, what=f"HEAD of token {i}")
        equal(r[4], "ROOT" if h == i else c["tokens"][h], what=f"HEAD_TOKEN of token {i}")


@check("repository_examples_render")
def repository_examples(out, ref):
    for j in range(ref["tables"][1]):  # ("seq", number of examples) in the trusted reference run
        table = out.get(f"tables.{j}")
        expect(isinstance(table, str), f"example {j}: no table string")
        equal(len(table.split("\n")), ref[f"n_tokens.{j}"] + 2, what=f"example {j}: number of lines")
