"""Regenerate tests/fixtures for spec-decoding/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR``. Writes OUT_DIR/cases.json: target/draft distribution pairs with drafted
tokens and uniform numbers for `verify` (random, peaked, one-hot), and options for steps and generations of the
tiny models. Every float is rounded to 6 decimals. Deterministic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def dist(rng: np.random.Generator, shape, conc: float) -> np.ndarray:
    d = rng.dirichlet(np.full(shape[-1], conc), size=shape[:-1])
    d = np.round(d, 6)
    d[..., -1] = np.round(1.0 - d[..., :-1].sum(axis=-1), 6)
    return np.clip(d, 0.0, None)


def main(out: Path) -> None:
    rng = np.random.default_rng(20221130)
    verify = []
    for gamma, vocab, conc in [(1, 5, 1.0), (2, 6, 0.5), (3, 8, 1.0), (4, 16, 0.3), (5, 10, 2.0), (3, 4, 0.2)]:
        q = dist(rng, (gamma, vocab), conc)
        p = dist(rng, (gamma + 1, vocab), conc)
        for _ in range(3):
            drafted = [int(rng.choice(vocab, p=row / row.sum())) for row in q]
            verify.append({"p": p.tolist(), "q": q.tolist(), "drafted": drafted,
                           "r": np.round(rng.random(gamma), 6).tolist(), "u": round(float(rng.random()), 6)})
    steps = [
        {"prefix": [1, 2, 3], "gamma": 4, "temperature": 1.0, "seed": 0},
        {"prefix": [5], "gamma": 1, "temperature": 1.0, "seed": 1},
        {"prefix": [0, 0, 7, 9], "gamma": 3, "temperature": 0.7, "seed": 2},
        {"prefix": [4, 4], "gamma": 5, "temperature": 0.0, "seed": 3},
        {"prefix": [11, 3, 8], "gamma": 2, "temperature": 1.5, "seed": 4},
    ]
    generations = [
        {"prompt": [1, 2, 3], "gamma": 4, "temperature": 1.0, "max_new_tokens": 25, "seed": 7},
        {"prompt": [6], "gamma": 2, "temperature": 0.8, "max_new_tokens": 13, "seed": 8},
        {"prompt": [2, 9], "gamma": 3, "temperature": 0.0, "max_new_tokens": 17, "seed": 9},
        {"prompt": [3], "gamma": 1, "temperature": 1.0, "max_new_tokens": 1, "seed": 10},
        {"prompt": [7, 7], "gamma": 3, "temperature": 1.0, "max_new_tokens": 2, "seed": 11},
        {"prompt": [12], "gamma": 2, "temperature": 1.2, "max_new_tokens": 3, "seed": 12},
        {"prompt": [1], "gamma": 4, "temperature": 1.0, "max_new_tokens": 1, "seed": 13},
    ]
    data = {"verify": verify, "steps": steps, "generations": generations}
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
