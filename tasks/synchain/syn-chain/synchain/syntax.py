"""Step 1 of the reasoning chain: present a sentence's dependency parse as a fixed-width table."""
from __future__ import annotations

from synchain.parse import DependencyParse

COLUMNS = ("ID", "TOKEN", "POS", "HEAD", "HEAD_TOKEN", "DEPREL")
RIGHT_ALIGNED = ("ID", "HEAD")
SEPARATOR = "  "


def format_dependency_table(parse: DependencyParse, skip_punct: bool = False) -> str:
    """Render a dependency parse as a fixed-width, CoNLL-style table.

    One row per token, with the columns ID, TOKEN, POS, HEAD, HEAD_TOKEN, DEPREL:
    ID is the token's 1-based position; HEAD is the 1-based position of its head, 0 for the root; HEAD_TOKEN
    is the head's text, "ROOT" for the root; POS and DEPREL are copied from the parse. In `parse.heads` the
    root is the token whose head is itself (0-based indices, as spaCy gives them).

    Layout: every column is as wide as its longest cell, header included. ID and HEAD are right-aligned,
    the other columns left-aligned, headers aligned like their column. Cells are joined with two spaces. The
    first line holds the headers, the second a rule of "-" as wide as each column (joined the same way), then
    one line per token in sentence order. Trailing spaces are removed from every line; lines are joined with
    "\\n" and there is no final newline.

    With `skip_punct=True` the rows of tokens whose POS is "PUNCT" are left out (before the widths are
    computed); the other rows keep their IDs and heads.

    Raises:
        ValueError: if the parse is empty, its lists differ in length, a head index is out of range, there
            is not exactly one root, or some token's chain of heads does not reach the root (a cycle).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
