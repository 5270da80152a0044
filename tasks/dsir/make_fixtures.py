"""Regenerate tests/fixtures for dsir/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/dsir_cases.json. Deterministic (numpy's PCG64 with fixed seeds; floats stored
with repr, which round-trips exactly).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from dsir.corpus import make_corpus

# texts, num_buckets, ngram_orders
FEATURIZE = [
    (["The cat sat on the mat."], 10_000, [1, 2]),
    (["the cat the", "", "word", "Hello, WORLD! hello world..."], 10_000, [1, 2]),
    (["a b c d e f g", "x", "x y"], 7, [1, 2]),  # few buckets: collisions
    (["one two three four five", "one two", "   ", "3 apples and 42 pears"], 50, [1]),
    (["one two three four five", "one two", "two"], 50, [2]),  # bigrams only
    (["alpha beta gamma delta", "alpha beta", "beta gamma delta alpha beta"], 101, [1, 2, 3]),
    (["It's a well-known fact: data-selection matters.", "C++ / Rust / Go"], 1000, [2, 1]),
]


def counts(rng: np.random.Generator, n: int, m: int, density: float) -> list:
    c = rng.poisson(3.0, size=(n, m)) * (rng.random((n, m)) < density)
    return c.astype(int).tolist()


def dist(rng: np.random.Generator, m: int) -> list:
    p = rng.random(m) + 0.01
    return (p / p.sum()).tolist()


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2302)
    cases: dict = {}
    cases["featurize"] = [{"texts": t, "num_buckets": m, "ngram_orders": o} for t, m, o in FEATURIZE]
    # fit: (n, m, density, smoothing)
    cases["fit"] = [{"counts": counts(rng, n, m, d), "m": m, "smoothing": s}
                    for n, m, d, s in [(5, 8, 0.6, 1.0), (1, 12, 0.5, 0.0), (30, 40, 0.3, 0.5), (3, 6, 0.2, 2.0),
                                       (0, 9, 0.5, 1.0), (4, 200, 0.05, 1e-3), (12, 25, 1.0, 0.0)]]
    # a single n-gram and no smoothing; no examples and a small pseudocount (normalisers 1 and 0.009)
    cases["fit"] += [{"counts": [[0, 1, 0]], "m": 3, "smoothing": 0.0}, {"counts": [], "m": 9, "smoothing": 1e-3}]
    # importance weights: (n, m, density)
    cases["weights"] = [{"counts": counts(rng, n, m, d), "target": dist(rng, m), "raw": dist(rng, m)}
                        for n, m, d in [(6, 10, 0.5), (1, 4, 1.0), (25, 60, 0.2), (8, 300, 0.03)]]
    # resampling: (n, k, resample, scale of the log-weights, seed)
    cases["resample"] = [{"log_weights": (sc * rng.standard_normal(n)).tolist(), "k": k, "resample": r, "seed": s}
                         for n, k, r, sc, s in [(10, 3, True, 1.0, 0), (50, 20, True, 3.0, 1), (200, 37, True, 0.5, 2),
                                                (12, 12, True, 1.0, 3), (9, 0, True, 1.0, 4), (1, 1, True, 1.0, 5),
                                                (40, 10, False, 2.0, 6), (25, 25, False, 1.0, 7),
                                                (30, 5, True, 50.0, 8)]]
    # KL divergence: pairs of distributions, the last with zeros in p
    kl = [{"p": dist(rng, m), "q": dist(rng, m)} for m in (2, 7, 100)]
    kl.append({"p": [0.0, 0.3, 0.0, 0.7], "q": [0.1, 0.2, 0.3, 0.4]})
    cases["kl"] = kl
    # KL reduction: (m, n_raw, k, targets' sizes, smoothing)
    red = []
    for m, n, k, sizes, s in [(20, 30, 8, [5], 1.0), (50, 40, 10, [6, 9, 3], 0.5), (15, 12, 12, [4, 4], 1.0),
                              (100, 60, 5, [10], 0.1)]:
        raw = counts(rng, n, m, 0.3)
        pick = np.sort(rng.choice(n, size=k, replace=False)).tolist()
        red.append({"raw": raw, "selected": pick, "targets": [counts(rng, t, m, 0.4) for t in sizes], "smoothing": s})
    cases["kl_reduction"] = red
    # end to end: corpora of the repository's generator, with configurations
    e2e = []
    for seed, n_raw, n_target, domain, k, m, orders, smoothing, resample in [
        (0, 60, 10, "science", 10, 10_000, [1, 2], 1.0, True),
        (1, 80, 15, "code", 20, 500, [1, 2], 0.5, True),
        (2, 50, 8, "fiction", 7, 10_000, [1], 1.0, False),
        (3, 40, 6, "news", 12, 64, [1, 2], 2.0, True),
    ]:
        raw, target = make_corpus(seed, n_raw=n_raw, n_target=n_target, target_domain=domain)
        e2e.append({"raw": [d.text for d in raw], "raw_domains": [d.domain for d in raw],
                    "target": [d.text for d in target], "domain": domain, "k": k,
                    "config": {"num_buckets": m, "ngram_orders": orders, "smoothing": smoothing, "resample": resample,
                               "seed": seed}})
    cases["end_to_end"] = e2e
    with open(out / "dsir_cases.json", "w", encoding="utf-8") as f:
        json.dump(cases, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
