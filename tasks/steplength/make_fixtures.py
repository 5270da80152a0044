"""Regenerate tests/fixtures for steplength/1 from the reference implementation.

Run from a copy of the repository with the reference applied:  python make_fixtures.py OUT_DIR
Inputs only (demonstrations, arguments): the reference's outputs are computed by the probe and stored outside the
sandbox, in tests/expected/.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path

from steplen.data import Demonstration, demonstrations, eval_problems
from steplen.templates import STRATEGIES


def edge_demos() -> list[Demonstration]:
    return [
        Demonstration("What is 2 plus 2?", ("2 + 2 = 4.",), "4", "plus", "adding two numbers", "2 + 2 = 4"),
        Demonstration("Is 9 odd?", ("9 = 2 * 4 + 1.", "So 9 leaves remainder 1."), "yes"),
        Demonstration("How many legs do 3 cats have?", ("A cat has 4 legs.", "3 * 4 = 12."), "12",
                      keyword="legs", keyword_meaning=None, equation="3 * 4 = 12"),
        Demonstration("Sum 1..7?", tuple(f"Add {i}: running total {i * (i + 1) // 2}." for i in range(1, 8)), "28",
                      keyword="sum", keyword_meaning="the result of adding numbers", equation=None),
        Demonstration('Say "hi" twice?', ("Write hi.", "Write hi again.", "That is hi hi."), "hi hi",
                      keyword=None, keyword_meaning="unused", equation="hi * 2 = hi hi"),
    ]


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pool = demonstrations(10, seed=3) + edge_demos()
    demos = [dataclasses.asdict(d) for d in pool]

    expand = [{"demo": i, "n": n} for i in range(len(pool)) for n in range(6)]
    compress = [{"demo": i, "n": n} for i in range(len(pool)) for n in range(1, 9)]

    rng = random.Random(17)
    questions = [p.question for p in eval_problems(6, seed=5)] + ['A "quoted" question?']
    prompts = []
    for question in questions:
        for strategy in STRATEGIES:
            for n in ([0] if strategy not in ("add_steps", "compress_steps") else
                      ([1, 2, 3, 4, 5] if strategy == "add_steps" else [1, 2, 3])):
                chosen = rng.sample(range(len(pool)), rng.randint(1, 5))
                prompts.append({"question": question, "demos": chosen, "strategy": strategy, "n_steps": n})

    data = {"demos": demos, "expand": expand, "compress": compress, "prompts": prompts}
    (out / "steplength_cases.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
