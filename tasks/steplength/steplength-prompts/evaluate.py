"""Accuracy of the scripted reasoner under each reasoning-step strategy.

    python evaluate.py --shots 4 --problems 40

Builds one prompt per (strategy, step setting, test problem), queries the scripted model, extracts
its answer and prints an accuracy table plus the prompt lengths (in reasoning steps) behind each row.
"""

from __future__ import annotations

import argparse
import re

from steplen.data import demonstrations, eval_problems
from steplen.mock_llm import ScriptedReasoner, extract_answer
from steplen.prompting import build_prompt
from steplen.templates import DEMO_SEPARATOR

SETTINGS = [
    ("zero_shot", 0), ("zero_shot_cot", 0), ("zero_shot_more_steps", 0), ("few_shot_cot", 0),
    ("add_steps", 1), ("add_steps", 3), ("add_steps", 5), ("compress_steps", 2), ("compress_steps", 1),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shots", type=int, default=4)
    parser.add_argument("--problems", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", action="store_true", help="print one prompt per setting")
    args = parser.parse_args()

    demos = demonstrations(args.shots, seed=args.seed)
    problems = eval_problems(args.problems, seed=args.seed + 1)
    model = ScriptedReasoner()
    print(f"{'strategy':22s} {'n':>2s} {'steps/demo':>10s} {'accuracy':>8s}")
    for strategy, n in SETTINGS:
        correct = 0
        for problem in problems:
            prompt = build_prompt(problem.question, demos, strategy, n_steps=n)
            correct += extract_answer(model.complete(prompt)) == str(problem.answer)
        example = build_prompt(problems[0].question, demos, strategy, n_steps=n)
        n_demos = example.count(DEMO_SEPARATOR)  # zero-shot prompts have no separator
        steps = len(re.findall(r"^Step \d+: ", example, re.MULTILINE)) / n_demos if n_demos else 0.0
        print(f"{strategy:22s} {n:2d} {steps:10.1f} {correct / len(problems):8.2f}")
        if args.show:
            print(example, end="\n\n")


if __name__ == "__main__":
    main()
