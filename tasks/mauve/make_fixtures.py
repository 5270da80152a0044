"""Regenerate tests/fixtures for mauve/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR``. Writes OUT_DIR/cases.json: histogram pairs (with empty buckets, a
point mass, disjoint supports), curves for the area, and feature sets (Gaussian blobs of known structure) for the
quantisation. Deterministic: every number is rounded to 6 decimals before it is written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def r6(x) -> list:
    return np.round(np.asarray(x, dtype=np.float64), 6).tolist()


def hist(rng: np.random.Generator, k: int, zeros: int = 0) -> list:
    h = rng.gamma(0.7, size=k) + 1e-3
    if zeros:
        h[rng.choice(k, size=zeros, replace=False)] = 0.0
    h = np.round(h / h.sum(), 6)
    h[np.argmax(h)] += 1.0 - h.sum()  # exact sum 1 after rounding
    return r6(h)


def blobs(rng: np.random.Generator, n: int, centres: np.ndarray, weights, spread: float) -> list:
    which = rng.choice(len(centres), size=n, p=np.asarray(weights) / np.sum(weights))
    return r6(centres[which] + spread * rng.standard_normal((n, centres.shape[1])))


def main(out: Path) -> None:
    rng = np.random.default_rng(20210202)
    pairs = []
    for k, zp, zq, opts in [(3, 0, 0, {}), (5, 1, 2, {}), (10, 3, 0, {"scaling": 1.0}), (10, 0, 4, {"num_lambdas": 9}),
                            (40, 8, 8, {}), (4, 0, 0, {"scaling": 2.0, "num_lambdas": 50})]:
        pairs.append({"p": hist(rng, k, zp), "q": hist(rng, k, zq), "cfg": opts})
    d = 6
    centres = rng.normal(0.0, 3.0, (5, d))
    features = [
        {"p": blobs(rng, 30, centres, [1, 1, 1, 0, 0], 0.3), "q": blobs(rng, 40, centres, [0, 1, 1, 1, 1], 0.3),
         "cfg": {}},
        {"p": blobs(rng, 50, centres, [1, 1, 1, 1, 1], 0.4), "q": blobs(rng, 25, centres, [3, 0, 1, 0, 1], 0.4),
         "cfg": {"num_buckets": 5}},
        {"p": blobs(rng, 24, centres[:3], [1, 1, 1], 0.2), "q": blobs(rng, 24, centres[:3], [1, 1, 1], 0.2),
         "cfg": {"num_buckets": 3, "pca_variance": 0.99}},
        {"p": blobs(rng, 60, centres, [2, 1, 1, 1, 1], 0.5), "q": blobs(rng, 60, centres, [1, 1, 1, 1, 2], 0.5),
         "cfg": {"num_buckets": 8, "scaling": 3.0, "num_lambdas": 15}},
    ]
    data = {"pairs": pairs, "features": features}
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
