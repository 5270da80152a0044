# WRONG: left-aligns every column, numbers included
def format_dependency_table(parse, skip_punct=False):
    n = len(parse.tokens)
    if n == 0:
        raise ValueError("empty parse")
    if not len(parse.heads) == len(parse.deps) == len(parse.pos) == n:
        raise ValueError("tokens, heads, deps and pos must have the same length")
    if any(not 0 <= h < n for h in parse.heads):
        raise ValueError("head index out of range")
    roots = [i for i, h in enumerate(parse.heads) if h == i]
    if len(roots) != 1:
        raise ValueError("expected exactly one root")
    for i in range(n):
        j, steps = i, 0
        while parse.heads[j] != j:
            j, steps = parse.heads[j], steps + 1
            if steps > n:
                raise ValueError("cycle")
    rows = []
    for i in range(n):
        if skip_punct and parse.pos[i] == "PUNCT":
            continue
        h = parse.heads[i]
        is_root = h == i
        rows.append((str(i + 1), parse.tokens[i], parse.pos[i], "0" if is_root else str(h + 1),
                     "ROOT" if is_root else parse.tokens[h], parse.deps[i]))
    widths = [max(len(c) for c in column) for column in zip(COLUMNS, *rows)]
    lines = [COLUMNS, ["-" * w for w in widths]] + rows
    return "\n".join(SEPARATOR.join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in lines)
