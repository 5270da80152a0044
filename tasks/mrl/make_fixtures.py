"""Regenerate tests/fixtures for mrl/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR``. Writes OUT_DIR/cases.json: representations, classifier parameters and
labels for the logits and the loss; logits and thresholds for adaptive classification; queries, databases (with
duplicated rows) and cascades for funnel retrieval. Every float is rounded to 6 decimals. Deterministic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def r6(x) -> list:
    return np.round(np.asarray(x, dtype=np.float64), 6).tolist()


def main(out: Path) -> None:
    rng = np.random.default_rng(20220526)
    heads = []
    for n, dims, classes, efficient, importance in [(5, [2, 4, 8], 3, False, None), (7, [2, 4, 8], 3, True, None),
                                                    (4, [1, 3, 6, 12], 4, False, [1.0, 0.5, 0.25, 2.0]),
                                                    (6, [4, 8, 16, 32], 5, True, [0.3, 0.3, 0.2, 0.2])]:
        d = dims[-1]
        shapes = [(classes, d)] if efficient else [(classes, m) for m in dims]
        heads.append({"z": r6(rng.normal(0, 1, (n, d))), "dims": dims, "efficient": efficient,
                      "importance": importance, "weights": [r6(rng.normal(0, 0.5, s)) for s in shapes],
                      "biases": [r6(rng.normal(0, 0.1, classes)) for _ in dims],
                      "labels": rng.integers(0, classes, n).tolist()})
    adaptive = []
    for n, k, classes in [(6, 3, 4), (10, 4, 5), (3, 1, 2)]:
        adaptive.append({"logits": [r6(rng.normal(0, 2.0, (n, classes))) for _ in range(k)],
                         "thresholds": r6(rng.uniform(0.3, 0.9, k))})
    funnels = []
    for q, n, d, cascade in [(3, 20, 8, [[2, 10], [4, 5], [8, 2]]), (4, 30, 16, [[4, 30], [16, 3]]),
                             (2, 12, 6, [[6, 4]]), (5, 25, 8, [[1, 12], [2, 6], [8, 6]])]:
        db = rng.normal(0, 1, (n, d))
        db[n - 1] = db[2]  # a duplicate: equal similarities, the lower index first
        funnels.append({"queries": r6(rng.normal(0, 1, (q, d))), "database": r6(db), "cascade": cascade})
    data = {"heads": heads, "adaptive": adaptive, "funnels": funnels}
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
