"""Regenerate tests/fixtures for gdpzero/1 from the reference implementation.

Run from a copy of the repository with the reference applied:  python make_fixtures.py OUT_DIR
Saves inputs and options only: the reference's choices, values and trees are computed by the probe and stored
outside the sandbox, in tests/expected/. The reference runs here only to reject inputs with near-ties.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

from gdpzero.mcts import Node, OpenLoopMCTS
from gdpzero.simulator import ACTS, DialogueState, PersuasionSimulator

MARGIN = 1e-9


def puct_scores(node: Node, c: float, q0: float) -> list[float]:
    """Used only to reject near-ties, which a correct but differently rounded solution could break."""
    total = sum(node.visits.values())
    return [(node.q[a] if node.visits[a] else q0) + c * node.prior[a] * math.sqrt(max(total, 1)) / (1 + node.visits[a])
            for a in ACTS]


def well_separated(scores: list[float]) -> bool:
    best = max(scores)
    return all(s == best or best - s > MARGIN for s in scores)


class CheckedMCTS(OpenLoopMCTS):
    def select_action(self, node: Node) -> str:
        assert well_separated(puct_scores(node, self.c_puct, self.q0)), "near-tie in a fixture search"
        return super().select_action(node)


def select_cases() -> list[dict]:
    rng = random.Random(4321)
    cases = []
    while len(cases) < 60:
        raw = [rng.random() ** 2 + 0.01 for _ in ACTS]
        prior = {a: r / sum(raw) for a, r in zip(ACTS, raw)}
        p_zero = rng.choice([0.0, 0.3, 0.6, 1.0])
        visits = {a: 0 if rng.random() < p_zero else rng.randint(1, 12) for a in ACTS}
        q = {a: (round(rng.random(), 4) if visits[a] else 0.0) for a in ACTS}
        c = rng.choice([0.0, 0.5, 1.0, 1.0, 2.0, 4.0])
        q0 = rng.choice([0.0, 0.0, 0.25, 0.5, 1.0])
        node = Node(prior=prior, visits=visits, q=q)
        if not well_separated(puct_scores(node, c, q0)):
            continue
        cases.append({"prior": prior, "visits": visits, "q": q, "c_puct": c, "q0": q0})
    return cases


def search_cases() -> list[dict]:
    configs = [
        # start inclination, c_puct, q0, k, max_depth, n_simulations, simulator seed, max_turns
        (0.0, 1.0, 0.0, 3, 4, 40, 0, 6),
        (0.3, 1.0, 0.25, 3, 4, 40, 1, 6),
        (-0.2, 2.0, 0.0, 2, 5, 50, 2, 7),
        (0.6, 0.5, 0.0, 1, 3, 30, 3, 6),
        (0.1, 1.0, 1.0, 3, 4, 35, 4, 5),
        (0.2, 0.0, 0.5, 3, 3, 25, 5, 6),
        (0.0, 4.0, 0.0, 4, 6, 60, 6, 8),
        (0.4, 1.0, 0.0, 3, 1, 12, 7, 6),
        (0.9, 1.0, 0.0, 3, 4, 20, 8, 6),
        (0.0, 1.0, 0.0, 3, 4, 1, 9, 6),
    ]
    cases = []
    for incl, c, q0, k, depth, n, seed, max_turns in configs:
        sim = PersuasionSimulator(max_turns=max_turns, seed=seed)
        planner = CheckedMCTS(sim, c_puct=c, q0=q0, max_realizations=k, max_depth=depth)
        start = DialogueState(inclination=incl)
        root = Node()
        for _ in range(n):
            planner.simulate(root, start)  # the near-tie guard of CheckedMCTS runs on every selection
        CheckedMCTS(sim, c_puct=c, q0=q0, max_realizations=k, max_depth=depth).search(start, n)
        cases.append({
            "config": {"inclination": incl, "c_puct": c, "q0": q0, "max_realizations": k, "max_depth": depth,
                       "n_simulations": n, "seed": seed, "max_turns": max_turns},
        })
    return cases


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = {"select": select_cases(), "search": search_cases()}
    (out / "gdpzero_cases.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
