"""End-to-end: simulate the predictions for one grouping, build the normalised matrix, report the empathy gap.

    python run_experiment.py [--grouping religion|ethnicity|nationality] [--bias B] [--seed S]
"""

from __future__ import annotations

import argparse

import pandas as pd

from empathy.analysis import empathy_gap, empathy_matrix, permutation_test, predictions_table
from empathy.events import EVENTS
from empathy.groups import GROUPINGS, NEUTRAL, social_group_map
from empathy.parsing import parse_intensity
from empathy.prompts import make_prompt
from empathy.simulate import SimulatedLLM


def run(grouping: str, bias: float, seed: int, permutations: int = 200) -> dict[str, float]:
    groups = GROUPINGS[grouping]
    mapping = social_group_map(grouping)
    same = (lambda a, b: mapping[a] == mapping[b]) if mapping else (lambda a, b: a == b)
    llm = SimulatedLLM(lambda p, e: p != NEUTRAL and e != NEUTRAL and same(p, e), bias=bias, seed=seed)
    identities = [NEUTRAL] + groups
    records = []
    for persona in identities:
        for experiencer in identities:
            for item, (emotion, event) in enumerate(EVENTS):
                system, user = make_prompt(emotion, event, persona, experiencer)
                answer = llm.respond(system, user, persona, experiencer, item)
                records.append((persona, experiencer, item, parse_intensity(answer)))
    table = predictions_table(records)
    matrix = empathy_matrix(table, groups)
    gap, p_value = permutation_test(matrix, mapping, num_permutations=permutations, seed=seed)
    with pd.option_context("display.width", 160, "display.precision", 2):
        print(matrix)
    print(f"{grouping}: empathy gap delta = {gap:.3f} (permutation p = {p_value:.3f})")
    full = empathy_matrix(table, identities)
    print(f"with the neutral identity in the matrix, excluded from the gap: {empathy_gap(full, mapping):.3f}")
    return {"gap": gap, "p_value": p_value}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--grouping", choices=sorted(GROUPINGS), default="religion")
    parser.add_argument("--bias", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    run(args.grouping, args.bias, args.seed)


if __name__ == "__main__":
    main()
