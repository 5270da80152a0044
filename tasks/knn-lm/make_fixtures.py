"""Regenerate tests/fixtures for knn-lm/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from the repository (it uses knnlm.data). Writes OUT_DIR/cases.json:
training corpora and test sequences (synthetic text with recurring phrases) with kNN-LM options, and hand-made
neighbour lists for the kNN distribution. Deterministic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from knnlm.data import corpus


def main(out: Path) -> None:
    rng = np.random.default_rng(20191101)
    stores = []
    for n_train, length, cfg in [(6, 12, {"k": 4, "lam": 0.25}), (12, 20, {"k": 8, "lam": 0.5, "temperature": 2.0}),
                                 (3, 6, {"k": 100, "lam": 0.3}), (10, 16, {"k": 1, "lam": 1.0}),
                                 (8, 10, {"k": 16, "lam": 0.0})]:
        stores.append({"train": corpus(rng, n_train, length=length), "test": corpus(rng, 2, length=length),
                       "cfg": cfg})
    neighbours = []
    for m, k, vocab in [(1, 3, 5), (4, 6, 10), (3, 1, 4), (2, 8, 24)]:
        d = np.round(np.sort(rng.gamma(2.0, 1.5, size=(m, k)), axis=1), 6)
        v = rng.integers(0, vocab, size=(m, k))
        neighbours.append({"distances": d.tolist(), "values": v.tolist(), "vocab": vocab,
                           "temperature": float([1.0, 0.5, 3.0, 1.0][len(neighbours)])})
    data = {"stores": stores, "neighbours": neighbours}
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
