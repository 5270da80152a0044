"""Write the input fixtures of the empathy task (both implementations).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied. Inputs
only: the reference's matrices and gaps are computed by the probes and stored outside the sandbox, in
tests/expected/. The reference's `empathy_matrix` is called here only to redraw a case where no item survives.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from empathy.analysis import empathy_matrix, predictions_table
from empathy.groups import ETHNICITY_GROUP, NATIONALITY, NEUTRAL, RELIGION
from empathy.parsing import INVALID

POOL = RELIGION + NATIONALITY[:5]


def random_predictions(rng: np.random.Generator, index: int) -> dict:
    size = int(rng.integers(2, 7))
    if index % 3 == 2:
        labels = list(rng.choice(list(ETHNICITY_GROUP), size=size, replace=False))
    else:
        labels = list(rng.choice(POOL, size=size, replace=False))
    extra = [NEUTRAL] if index % 2 == 0 else [NEUTRAL, "a person from Mars"]
    identities = labels + extra
    items = sorted(int(i) for i in rng.choice(1000, size=int(rng.integers(3, 13)), replace=False))
    invalid_rate = [0.0, 0.01, 0.02, 0.04][index % 4]
    base = {item: rng.integers(20, 90) for item in items}
    records = []
    for persona in identities:
        for experiencer in identities:
            bonus = 6 if persona == experiencer else 0
            for item in items:
                value = int(np.clip(base[item] + bonus + rng.integers(-15, 16), 0, 100))
                if rng.random() < invalid_rate:
                    value = INVALID
                records.append((persona, experiencer, item, value))
    # An item that is invalid only in cells outside the analysed groups must stay.
    outside = [r for r in range(len(records)) if records[r][0] == NEUTRAL and records[r][2] == items[-1]]
    persona, experiencer, item, _ = records[outside[0]]
    records[outside[0]] = (persona, experiencer, item, INVALID)
    order = rng.permutation(len(records))
    records = [records[i] for i in order]
    groups = [str(g) for g in rng.permutation(labels)]  # not sorted: the output must follow this order
    table = predictions_table(records)
    try:
        empathy_matrix(table, groups)
    except ValueError:
        return random_predictions(rng, index + 100)
    return {"records": [list(r) for r in records], "groups": groups}


def random_gap_case(rng: np.random.Generator, index: int) -> dict:
    ethnic = index % 3 == 1
    pool = list(ETHNICITY_GROUP) if ethnic else POOL
    size = int(rng.integers(2, 7))
    labels = [str(x) for x in rng.choice(pool, size=size, replace=False)]
    if ethnic and len({ETHNICITY_GROUP[x] for x in labels}) == len(labels):
        labels.append(next(x for x in ETHNICITY_GROUP if x not in labels and ETHNICITY_GROUP[x] == ETHNICITY_GROUP[labels[0]]))
    case: dict = {}
    if index % 4 == 0:
        labels.insert(int(rng.integers(0, len(labels) + 1)), NEUTRAL)
    elif index % 8 == 3:
        case["exclude"] = [labels[-1]]  # a custom exclusion, the neutral identity absent
    elif index % 8 == 7:
        labels.append(NEUTRAL)
        case["exclude"] = []  # the neutral identity kept as its own group
    rows = labels
    cols = [str(x) for x in rng.permutation(labels)]  # columns in another order than rows
    values = rng.normal(size=(len(rows), len(cols)))
    if index % 5 == 0:
        values = values * 20 + 60  # raw intensities rather than z-scores
    mapping = None
    if ethnic:
        mapping = {label: ETHNICITY_GROUP.get(label, label) for label in labels}
    case.update({"rows": rows, "cols": cols, "values": values.tolist(), "social_group": mapping})
    return case


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2503_01030)
    matrices = [random_predictions(rng, i) for i in range(24)]
    gaps = [random_gap_case(rng, i) for i in range(40)]
    (out / "matrix_cases.json").write_text(json.dumps(matrices) + "\n")
    (out / "gap_cases.json").write_text(json.dumps(gaps, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
