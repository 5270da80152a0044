"""Regenerate tests/fixtures for s1-budget/1 (inputs and options only; the reference's outputs go to
tests/expected/).

Run from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/s1_cases.pt: questions, budget settings and metric inputs. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from s1.data import toy_questions
from s1.tokenizer import ToyTokenizer

NONE = -1  # "no maximum" in the fixtures (max_thinking_tokens=None)


def budget(max_tokens: int = NONE, min_tokens: int = 0, min_waits: int = 0, wait: str = "Wait",
           prefix: str = "Final Answer:", max_answer: int = 8, model_seed: int = 0) -> dict:
    return {"max": max_tokens, "min": min_tokens, "waits": min_waits, "wait": wait, "prefix": prefix,
            "max_answer": max_answer, "model_seed": model_seed}


def budget_cases() -> list[dict]:
    return [
        budget(),                                   # the model's own thinking length
        budget(max_tokens=0),                       # no thinking at all
        budget(max_tokens=1),
        budget(max_tokens=5),
        budget(max_tokens=10),
        budget(max_tokens=16),                      # three questions would end their thinking at exactly 16
        budget(max_tokens=60),                      # above every natural length: never forced
        budget(min_tokens=20),
        budget(min_tokens=40),
        budget(min_waits=1),
        budget(min_waits=3),
        budget(max_tokens=20, min_waits=2),
        budget(max_tokens=15, min_tokens=25),       # the maximum ends what the minimum extends
        budget(min_waits=2, wait="hmm"),
        budget(max_tokens=21, min_tokens=20, wait="Wait so"),  # a two-token wait may cross the maximum
        budget(max_tokens=6, prefix="Answer:"),
        budget(max_tokens=4, max_answer=1),
        budget(max_tokens=4, max_answer=0),
        budget(min_tokens=0, max_answer=2),
        budget(min_waits=2, model_seed=1),
        budget(max_tokens=7, model_seed=1),
    ]


def metric_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n in (2, 3, 5, 8):
        compute = (torch.randperm(40, generator=g)[:n].double() * 7.5 + 1.0).tolist()  # distinct, unsorted
        accuracy = torch.rand(n, generator=g, dtype=torch.float64).tolist()
        lo = float(sorted(compute)[n // 3])
        cases.append({"compute": compute, "accuracy": accuracy, "a_min": lo, "a_max": lo + 100.0})
    return cases


def main(out_dir: str) -> None:
    tokenizer = ToyTokenizer()
    questions = toy_questions(tokenizer, 5, seed=7) + toy_questions(tokenizer, 1, seed=11)
    cases = {"prompts": [q.prompt_ids for q in questions], "truth": [q.answer for q in questions],
             "budgets": budget_cases(), "metrics": metric_cases(torch.Generator().manual_seed(2501))}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "s1_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
