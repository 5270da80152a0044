"""Regenerate tests/fixtures for gepa/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied. Writes
OUT_DIR/gepa_cases.json. Deterministic.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path


def score_matrix(rng: random.Random, n_cand: int, n_inst: int, levels: int) -> list[list[float]]:
    """Scores in multiples of 1/8 drawn from `levels` values (few levels: many ties)."""
    values = [8 - 2 * v for v in range(levels)]
    return [[rng.choice(values) / 8 for _ in range(n_inst)] for _ in range(n_cand)]


def matrices(rng: random.Random) -> list[list[list[float]]]:
    shapes = [(1, 1), (1, 5), (4, 1), (2, 3), (3, 4), (5, 6), (6, 6), (8, 10), (12, 7), (20, 12)]
    out = [score_matrix(rng, c, i, levels) for (c, i) in shapes for levels in (2, 4)]
    # hand-built: the paper's example (candidate 1 best on instance 0 only, candidate 2 best on 0 and 1)
    out.append([[0.0, 0.0, 1.0], [1.0, 0.25, 0.0], [1.0, 0.5, 0.0]])
    # two candidates best on exactly the same instances, a third best elsewhere
    out.append([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.5, 1.0]])
    # candidate 0 is best only where 1 or 2 are best too, but neither is best everywhere 0 is
    out.append([[1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    # a chain: 0 within 1 within 2
    out.append([[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.5], [0.0, 0.0, 0.0, 1.0]])
    # all equal
    out.append([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
    return out


# (data seed, n_train, config overrides, selection seed, steps)
STEP_CASES = [
    (0, 18, {}, 0, 8),
    (1, 18, {}, 1, 12),
    (2, 12, {"minibatch_size": 2, "n_pareto": 4}, 5, 12),
    (3, 20, {"minibatch_size": 4, "n_pareto": 8, "minibatch_seed": 7}, 3, 10),
    (4, 9, {"minibatch_size": 1, "n_pareto": 3}, 11, 16),
    (5, 15, {"minibatch_size": 5, "n_pareto": 5, "minibatch_seed": 2}, 4, 6),
    (6, 7, {"minibatch_size": 6, "n_pareto": 1}, 9, 5),
]

# (selection seed, budget, config overrides) for optimize.optimize
RUN_CASES = [(0, 120, {}), (1, 150, {}), (2, 120, {"minibatch_size": 2, "n_pareto": 5}), (3, 40, {}),
             (4, 19, {}), (7, 300, {"minibatch_size": 4, "n_pareto": 8, "minibatch_seed": 3})]


def main(out_dir: Path) -> None:
    rng = random.Random(20250725)
    cases = {"matrices": matrices(rng),
             "select": [{"matrix": m, "seed": s, "draws": 200} for s, m in enumerate(matrices(random.Random(7)))],
             "steps": [dict(zip(("data_seed", "n_train", "config", "seed", "steps"), c)) for c in STEP_CASES],
             "runs": [dict(zip(("seed", "budget", "config"), c)) for c in RUN_CASES]}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "gepa_cases.json").write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
