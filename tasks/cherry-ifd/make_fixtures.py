"""Regenerate tests/fixtures for cherry-ifd/1 (inputs and options only; the reference's outputs go to
tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/cherry_cases.pt. Deterministic.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

import torch

VOCAB = 40


def samples(rng: random.Random, n: int, q: tuple[int, int], a: tuple[int, int]) -> list[dict]:
    return [{"instruction": [rng.randrange(2, VOCAB) for _ in range(rng.randint(*q))],
             "answer": [rng.randrange(2, VOCAB) for _ in range(rng.randint(*a))]} for _ in range(n)]


def kmeans_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n, d, k, iters, seed in ((12, 2, 3, 5, 0), (30, 4, 5, 10, 1), (7, 3, 7, 3, 2), (9, 2, 1, 4, 3),
                                 (20, 5, 4, 0, 4), (40, 3, 6, 8, 5), (30, 2, 5, 1, 9), (40, 4, 6, 2, 10)):
        cases.append({"points": torch.randn(n, d, generator=g, dtype=torch.float64), "k": k, "iters": iters,
                      "seed": seed})
    # three well-separated blobs
    centres = torch.tensor([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]], dtype=torch.float64)
    blobs = centres.repeat_interleave(6, dim=0) + 0.3 * torch.randn(18, 2, generator=g, dtype=torch.float64)
    cases.append({"points": blobs, "k": 3, "iters": 10, "seed": 6})
    # duplicated points: centroids can coincide, a cluster can stay empty (ties go to the lower index)
    base = torch.randn(3, 2, generator=g, dtype=torch.float64)
    cases.append({"points": base.repeat(4, 1), "k": 4, "iters": 5, "seed": 7})
    cases.append({"points": torch.randn(10, 3, generator=g, dtype=torch.float32), "k": 3, "iters": 6, "seed": 8})
    return cases


def subset_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n, d, k, per, iters, seed in ((24, 3, 4, 3, 10, 0), (15, 2, 3, 10, 5, 1), (30, 6, 5, 1, 8, 2),
                                      (10, 2, 2, 4, 0, 3), (36, 3, 4, 3, 1, 11)):
        cases.append({"embeddings": torch.randn(n, d, generator=g, dtype=torch.float64),
                      "config": {"num_clusters": k, "per_cluster": per, "kmeans_iters": iters, "kmeans_seed": seed}})
    return cases


def main(out_dir: str) -> None:
    rng = random.Random(2308)
    g = torch.Generator().manual_seed(2308)
    cases = {
        "embed": [{"samples": samples(rng, n, q, (1, 3)), "seed": s}
                  for s, (n, q) in enumerate(((5, (1, 6)), (1, (4, 4)), (8, (1, 12)), (3, (1, 1))))],
        "scores": [{"samples": samples(rng, n, q, a), "seed": s}
                   for s, (n, q, a) in enumerate(((6, (1, 6), (1, 6)), (1, (3, 3), (5, 5)), (10, (1, 10), (1, 10)),
                                                  (4, (2, 5), (1, 1))))],
        "kmeans": kmeans_cases(g),
        "subset": subset_cases(g),
        "e2e": [{"config": {}, "num_samples": 40, "data_seed": 0},
                {"config": {"num_clusters": 3, "per_cluster": 5, "experience_steps": 8, "num_selected": 10,
                            "seed": 1}, "num_samples": 50, "data_seed": 1},
                {"config": {"num_clusters": 6, "per_cluster": 2, "kmeans_iters": 3, "kmeans_seed": 4,
                            "lr": 0.03, "num_selected": 30, "seed": 2}, "num_samples": 36, "data_seed": 2}],
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "cherry_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
