"""Regenerate tests/fixtures: python make_fixtures.py OUT_DIR (cwd = repo with reference).

Inputs and options only: the reference's outputs are computed by the probes and stored outside the sandbox,
in tests/expected/."""
import json
import sys
from pathlib import Path

import numpy as np

from boundary.tasks import TASK_KINDS


def task_cases() -> list[dict]:
    cases = []
    sizes = [2, 3, 5, 17, 64]
    noises = [0.0, 0.05, 0.3]
    factors = [0.3, 0.5, 0.8]
    i = 0
    for kind in TASK_KINDS:
        for j in range(10):
            n, noise, factor = sizes[j % 5], noises[j % 3], factors[(j // 3) % 3]
            shuffle = j % 4 != 3
            seed = 7 * i + j * j
            cases.append({"kind": kind, "n_samples": n, "seed": seed, "noise": noise, "factor": factor,
                          "shuffle": shuffle})
            i += 1
    for kind in TASK_KINDS:  # the defaults: n_samples=128, seed=0, noise=0.1, factor=0.5, shuffle=True
        cases.append({"kind": kind, "defaults": True})
    return cases


def grid_cases() -> list[dict]:
    rng = np.random.default_rng(99)
    cases = []
    for i in range(12):
        n = int(rng.integers(1, 30))
        X = rng.normal(size=(n, 2)) * rng.uniform(0.1, 5.0, size=2) + rng.normal(size=2) * 3
        if i == 3:
            X[:, 1] = 0.7  # a degenerate axis
        res = [2, 3, 7, 20][i % 4]
        margin = [0.0, 0.1, 0.5][i % 3]
        cases.append({"X": X.tolist(), "resolution": res, "margin": margin})
    X = rng.normal(size=(10, 2))
    cases.append({"X": X.tolist(), "defaults": True})  # the defaults: resolution=50, margin=0.1
    return cases


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "task_cases.json").write_text(json.dumps(task_cases()))
    (out / "grid_cases.json").write_text(json.dumps(grid_cases()))
    print("wrote task_cases.json and grid_cases.json")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
