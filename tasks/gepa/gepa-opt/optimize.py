"""Run GEPA on the synthetic cleaning-and-formatting task and report what it found.

    python optimize.py --budget 120 --seed 0
"""
from __future__ import annotations

import argparse
import random

from gepa.config import GEPAConfig
from gepa.data import make_examples
from gepa.engine import GEPA
from gepa.lm import RuleLM
from gepa.metric import rollouts
from gepa.program import MODULE_NAMES, seed_program
from gepa.reflection import RuleReflector


def optimize(config: GEPAConfig, seed: int, n_train: int = 18) -> GEPA:
    """Build the task from `seed` and run GEPA on it; returns the finished optimiser."""
    data_rng = random.Random(1000 + seed)
    trainset = make_examples(n_train, data_rng)
    gepa = GEPA(seed_program(), trainset, config, RuleLM(), RuleReflector(), random.Random(seed))
    gepa.run()
    return gepa


def test_score(gepa: GEPA, seed: int, n_train: int = 18, n_test: int = 20) -> float:
    """The best candidate's average score on held-out instances."""
    data_rng = random.Random(1000 + seed)
    make_examples(n_train, data_rng)
    tests = make_examples(n_test, data_rng)
    best = gepa.pool.programs[gepa.pool.best_index()]
    return sum(r.feedback.score for r in rollouts(best, tests, RuleLM())) / n_test


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    gepa = optimize(GEPAConfig(max_rollouts=args.budget), args.seed)
    for n, rec in enumerate(gepa.history, start=1):
        verdict = f"accepted as {rec.child}" if rec.accepted else "rejected"
        print(f"iter {n}: parent {rec.parent} module {MODULE_NAMES[rec.module]} "
              f"{sum(rec.parent_scores)} -> {sum(rec.child_scores)} {verdict} ({rec.rollouts_used} rollouts)")
    best = gepa.pool.best_index()
    print(f"{len(gepa.pool.programs)} candidates; best {best}, lineage {gepa.pool.lineage(best)}, "
          f"D_pareto mean {gepa.pool.mean_scores()[best]:.3f}, test {test_score(gepa, args.seed):.3f}")
    for name, text in zip(MODULE_NAMES, gepa.pool.programs[best].instructions):
        print(f"[{name}]\n{text}")


if __name__ == "__main__":
    main()
