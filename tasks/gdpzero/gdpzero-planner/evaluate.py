"""Donation rate of GDP-Zero planning against simple policies on the scripted persuasion task.

    python evaluate.py --dialogues 8 --simulations 20

The planner searches with one simulator (its "LLM"); the dialogues are played against another
simulator with a different seed (the "real" user), so the planner's model is not exact.
"""

from __future__ import annotations

import argparse
from collections import Counter

from gdpzero.mcts import OpenLoopMCTS
from gdpzero.policies import GDPZeroPolicy, PriorPolicy, RandomPolicy, run_dialogue
from gdpzero.simulator import DialogueState, PersuasionSimulator


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dialogues", type=int, default=8)
    parser.add_argument("--simulations", type=int, default=20)
    parser.add_argument("--c-puct", type=float, default=1.0)
    parser.add_argument("--q0", type=float, default=0.0)
    parser.add_argument("--realizations", type=int, default=3)
    args = parser.parse_args()

    planner_sim = PersuasionSimulator(seed=0)
    starts = [DialogueState(inclination=round(-0.3 + 0.1 * i, 2)) for i in range(args.dialogues)]
    planner = OpenLoopMCTS(planner_sim, c_puct=args.c_puct, q0=args.q0, max_realizations=args.realizations)
    policies = [RandomPolicy(planner_sim), PriorPolicy(planner_sim), GDPZeroPolicy(planner, args.simulations)]
    for policy in policies:
        outcomes, turns = Counter(), 0
        for i, start in enumerate(starts):
            end = run_dialogue(policy, PersuasionSimulator(seed=100 + i), start)
            outcomes[end.outcome] += 1
            turns += end.n_turns
        print(f"{policy.name:8s} donated {outcomes['donated']}/{len(starts)}  mean turns {turns / len(starts):.1f}")
    first = policies[-1].history[0]
    print("first root statistics:", {a: (first.visits[a], round(first.q[a], 3)) for a in planner_sim.acts})


if __name__ == "__main__":
    main()
