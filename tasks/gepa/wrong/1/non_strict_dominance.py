# wrong: a candidate is removed when another is best wherever it is (no "and on at least one more"), in index order
def prune_dominated(fronts: list[set[int]]) -> list[set[int]]:
    wins: dict[int, set[int]] = {}
    for i, front in enumerate(fronts):
        for k in front:
            wins.setdefault(k, set()).add(i)
    removed: set[int] = set()
    for k in sorted(wins):
        if any(wins[k] <= wins[o] for o in wins if o != k and o not in removed):
            removed.add(k)
    return [front - removed for front in fronts]
