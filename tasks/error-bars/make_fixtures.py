"""Regenerate tests/fixtures for error-bars/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR``. Writes OUT_DIR/cases.json: score tables (scores, mask, cluster
labels, kind), report options, pairs of tables and power-analysis inputs. Deterministic.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def table(rng: np.random.Generator, n: int, k: int | tuple[int, int], *, kind: str = "binary",
          clusters: str = "none", p: np.ndarray | None = None) -> dict:
    """A table spec. k: answers per question, or (low, high) for a ragged table. kind: binary, partial
    (scores in [0, 1] on a grid of 0.25) or probability. clusters: none, groups (random sizes), singletons,
    one (a single cluster) or interleaved (labels not contiguous)."""
    p = rng.uniform(0.05, 0.95, n) if p is None else p
    if kind == "probability":
        scores, counts = p[:, None].round(6), np.ones(n, dtype=int)
    else:
        counts = np.full(n, k) if isinstance(k, int) else rng.integers(k[0], k[1] + 1, n)
        width = int(counts.max())
        draws = rng.random((n, width)) < p[:, None]
        if kind == "partial":
            draws = rng.integers(0, 5, (n, width)) / 4.0
        mask = np.arange(width)[None, :] < counts[:, None]
        scores = np.where(mask, draws.astype(float), 0.0)
    labels = None
    if clusters == "groups":
        labels = np.sort(rng.integers(0, max(2, n // 3), n))
    elif clusters == "singletons":
        labels = np.arange(n)
    elif clusters == "one":
        labels = np.zeros(n, dtype=int)
    elif clusters == "interleaved":
        labels = np.arange(n) % 4
    return {"ids": [f"q{i}" for i in range(n)], "scores": scores.tolist(), "counts": counts.tolist(),
            "clusters": None if labels is None else [f"c{int(c)}" for c in labels],
            "kind": "probability" if kind == "probability" else "sampled"}


def permuted(spec: dict, rng: np.random.Generator) -> dict:
    order = rng.permutation(len(spec["ids"]))
    out = {key: [spec[key][i] for i in order] for key in ("ids", "scores", "counts")}
    out["clusters"] = None if spec["clusters"] is None else [spec["clusters"][i] for i in order]
    out["kind"] = spec["kind"]
    return out


def without_clusters(spec: dict) -> dict:
    return {**spec, "clusters": None}


def summaries(rng: np.random.Generator) -> list[dict]:
    rows = [
        (table(rng, 10, 1), 0.95, True),
        (table(rng, 12, 3), 0.95, True),
        (table(rng, 15, (1, 4), clusters="groups"), 0.95, True),  # some questions with one answer
        (table(rng, 20, (2, 5), clusters="groups"), 0.95, True),  # ragged, every question >= 2 answers
        (table(rng, 18, 2, kind="partial", clusters="groups"), 0.95, False),
        (table(rng, 16, 1, kind="probability", clusters="groups"), 0.95, True),
        (table(rng, 9, 1, kind="probability"), 0.9, True),
        (table(rng, 11, 3, clusters="singletons"), 0.95, True),
        (table(rng, 8, 2, clusters="one"), 0.95, True),
        (table(rng, 2, 2), 0.95, True),
        (table(rng, 120, 5, clusters="groups"), 0.95, True),
        (table(rng, 14, (2, 3), kind="partial", clusters="interleaved"), 0.99, True),
        (table(rng, 13, 4, clusters="interleaved"), 0.8, True),
    ]
    return [{"table": t, "confidence": c, "cluster_se": cl} for t, c, cl in rows]


def pair(rng: np.random.Generator, n: int, k_a, k_b, *, kinds=("binary", "binary"), clusters: str = "groups",
         where: str = "both", shuffle: bool = True, corr: float = 0.8) -> tuple[dict, dict]:
    base = rng.uniform(-2, 2, n)
    pa = 1 / (1 + np.exp(-(base + 0.3 + (1 - corr) * rng.normal(0, 1.5, n))))
    pb = 1 / (1 + np.exp(-(base + (1 - corr) * rng.normal(0, 1.5, n))))
    a = table(rng, n, k_a, kind=kinds[0], clusters=clusters, p=pa)
    b = table(rng, n, k_b, kind=kinds[1], clusters="none", p=pb)
    b["clusters"] = a["clusters"]
    if where == "a":
        b = without_clusters(b)
    elif where == "b":
        a = without_clusters(a)
    return a, (permuted(b, rng) if shuffle else b)


def comparisons(rng: np.random.Generator) -> list[dict]:
    rows = [
        (pair(rng, 10, 1, 1, clusters="none", shuffle=False), 0.95, True),
        (pair(rng, 24, 3, 3), 0.95, True),
        (pair(rng, 21, (1, 3), (2, 4), where="a"), 0.95, True),
        (pair(rng, 18, 1, 1, kinds=("probability", "probability")), 0.9, True),
        (pair(rng, 15, 4, 1, kinds=("binary", "probability"), clusters="interleaved"), 0.95, True),
        (pair(rng, 20, 2, 2), 0.95, False),
        (pair(rng, 50, 2, 3, kinds=("partial", "partial"), clusters="none", corr=0.2), 0.95, True),
        (pair(rng, 16, 3, 3, where="b"), 0.95, True),
        (pair(rng, 2, 1, 1, kinds=("probability", "probability"), clusters="none"), 0.95, True),
    ]
    return [{"a": a, "b": b, "confidence": c, "cluster_se": cl} for (a, b), c, cl in rows]


def pilots(rng: np.random.Generator) -> list[dict]:
    rows = [
        (pair(rng, 30, 4, 4, clusters="none"), 0.03, 0.05, 0.8, 1, 1),
        (pair(rng, 25, 3, 5), 0.05, 0.01, 0.9, 4, 2),
        (pair(rng, 20, 1, 1, kinds=("probability", "probability"), corr=0.3), 0.1, 0.05, 0.8, 1, 1),
        (pair(rng, 22, 6, 1, kinds=("binary", "probability"), corr=0.3), 0.02, 0.1, 0.7, 8, 1),
        (pair(rng, 26, (2, 5), (2, 4), corr=0.3), 0.04, 0.05, 0.8, 3, 3),  # ragged pilot
        (pair(rng, 2, 3, 2, kinds=("partial", "partial"), clusters="none"), 0.1, 0.05, 0.8, 2, 2),  # 2 questions
    ]
    return [{"a": a, "b": b, "effect": e, "alpha": al, "power": pw, "k_a": ka, "k_b": kb}
            for (a, b), e, al, pw, ka, kb in rows]


SPECS = [  # effect, omega2, sigma2_a, sigma2_b, alpha, power, k_a, k_b
    (0.05, 0.1, 0.2, 0.2, 0.05, 0.8, 1, 1),
    (0.02, 0.05, 0.15, 0.2, 0.05, 0.8, 4, 4),
    (0.01, 0.02, 0.2, 0.1, 0.01, 0.9, 10, 3),
    (0.1, 0.0, 0.0, 0.0, 0.05, 0.8, 1, 1),  # no variance at all: one question
    (0.03, 0.04, 0.0, 0.0, 0.1, 0.5, 1, 1),  # next-token probabilities, power 0.5 (z_beta = 0)
    (0.3, 0.01, 0.01, 0.01, 0.2, 0.6, 1, 2),  # a tiny eval
    (0.005, 0.08, 0.24, 0.25, 0.05, 0.95, 2, 1),
]


def main(out_dir: Path) -> None:
    rng = np.random.default_rng(20241101)
    cases = {"summaries": summaries(rng), "comparisons": comparisons(rng), "pilots": pilots(rng),
             "specs": [dict(zip(("effect", "omega2", "sigma2_a", "sigma2_b", "alpha", "power", "k_a", "k_b"), s))
                       for s in SPECS]}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cases.json").write_text(json.dumps(cases, indent=None, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
