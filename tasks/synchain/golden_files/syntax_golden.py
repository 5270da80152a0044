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
    n = len(parse.tokens)  # an empty parse fails the single-root check below
    if not len(parse.heads) == len(parse.deps) == len(parse.pos) == n:
        raise ValueError("tokens, heads, deps and pos must have the same length")
    if any(not 0 <= h < n for h in parse.heads):
        raise ValueError("head index out of range")
    roots = [i for i, h in enumerate(parse.heads) if h == i]
    if len(roots) != 1:
        raise ValueError(f"expected exactly one root, found {len(roots)}")
    for i in range(n):
        j, seen = i, set()
        while parse.heads[j] != j:
            if j in seen:
                raise ValueError(f"token {i} does not reach the root")
            seen.add(j)
            j = parse.heads[j]

    rows = []
    for i in range(n):
        if skip_punct and parse.pos[i] == "PUNCT":
            continue
        h = parse.heads[i]
        is_root = h == i
        rows.append((str(i + 1), parse.tokens[i], parse.pos[i], "0" if is_root else str(h + 1),
                     "ROOT" if is_root else parse.tokens[h], parse.deps[i]))
    widths = [max(len(c) for c in column) for column in zip(COLUMNS, *rows)]

    def line(cells) -> str:
        out = [c.rjust(w) if name in RIGHT_ALIGNED else c.ljust(w) for name, c, w in zip(COLUMNS, cells, widths)]
        return SEPARATOR.join(out).rstrip()

    return "\n".join([line(COLUMNS), line("-" * w for w in widths)] + [line(r) for r in rows])
