"""Regenerate tests/fixtures for llmlingua/1 (inputs and options only; the reference's outputs go to
tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/lingua_cases.json: token-id inputs and configs for each target. Deterministic.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from lingua.data import corpus
from lingua.tokenizer import WordTokenizer

VOCAB = WordTokenizer.from_texts(corpus()).vocab_size


def ids(rng: random.Random, length: int) -> list[int]:
    """`length` random word ids (never the beginning-of-sequence or unknown ids)."""
    return [rng.randrange(2, VOCAB) for _ in range(length)]


def nll_cases(rng: random.Random) -> list[dict]:
    shapes = ((0, 1), (0, 12), (5, 1), (7, 9), (30, 20), (1, 40))
    return [{"context": ids(rng, c), "tokens": ids(rng, t), "seed": s} for s, (c, t) in enumerate(shapes)]


def perplexity_cases(rng: random.Random) -> list[dict]:
    cases = []
    for seed, lengths in ((0, (5, 12, 30, 8)), (1, (1,)), (2, (20, 20, 3, 17, 9, 26)), (3, (40, 2))):
        cases.append({"demonstrations": [ids(rng, n) for n in lengths], "seed": seed})
    return cases


def budget_prompt(rng: random.Random, ins: int, dems: tuple[int, ...], que: int) -> dict:
    return {"instruction": ids(rng, ins), "demonstrations": [ids(rng, n) for n in dems], "question": ids(rng, que)}


def budget_cases(rng: random.Random) -> list[dict]:
    shapes = (
        (10, (30, 25, 40, 35, 20, 45), 12),  # the usual few-shot shape
        (6, (12, 50, 8, 33, 27), 9),  # demonstrations of very different lengths
        (3, (15,), 4),  # a single demonstration
        (25, (10, 12, 9, 11), 30),  # long instruction and question
        (1, (5, 60, 7, 44, 3, 21, 38, 16), 1),
    )
    configs = (
        {"rate": 0.5, "instruction_rate": 0.85, "question_rate": 0.9, "granularity": 2.0},
        {"rate": 0.3, "instruction_rate": 0.85, "question_rate": 0.9, "granularity": 2.0},
        {"rate": 0.2, "instruction_rate": 0.9, "question_rate": 1.0, "granularity": 1.0},
        {"rate": 0.4, "instruction_rate": 0.6, "question_rate": 0.7, "granularity": 1.5},
        {"rate": 0.8, "instruction_rate": 0.85, "question_rate": 0.9, "granularity": 3.0},
        {"rate": 1.0, "instruction_rate": 1.0, "question_rate": 1.0, "granularity": 1.0},
        {"rate": 0.05, "instruction_rate": 0.85, "question_rate": 0.9, "granularity": 2.0},  # tau_dems < 0
    )
    cases = []
    for s, shape in enumerate(shapes):
        prompt = budget_prompt(rng, *shape)
        for c, config in enumerate(configs):
            if (s + c) % 2 == 0 or s == 0:
                cases.append({"prompt": prompt, "config": config, "seed": s})
    return cases


def token_cases(rng: random.Random) -> list[dict]:
    cases = []
    layouts = (  # (part lengths, rates, segment size)
        ((10, 30, 25, 12), (0.9, 0.45, 0.45, 1.1), 8),
        ((10, 30, 25, 12), (0.9, 0.45, 0.45, 1.1), 16),
        ((20, 17), (0.5, 0.3), 1),
        ((20, 17), (0.5, 0.3), 2),
        ((5, 40, 6), (1.6, 0.25, -0.2), 7),
        ((33,), (0.6,), 64),
        ((9, 9, 9, 9, 9), (0.7, 0.2, 0.55, 0.35, 0.9), 4),
        ((12, 24, 8), (0.0, 0.5, 1.0), 5),
        ((1, 3, 1), (0.5, 0.5, 0.4), 3),
    )
    for seed, (lengths, rates, size) in enumerate(layouts):
        cases.append({"parts": [ids(rng, n) for n in lengths], "rates": list(rates), "segment_size": size,
                      "seed": seed % 3})
    return cases


def e2e_cases() -> list[dict]:
    return [
        {"config": {"rate": 0.5}, "demonstrations": 6, "seed": 0},
        {"config": {"rate": 0.3, "segment_size": 12}, "demonstrations": 6, "seed": 1},
        {"config": {"rate": 0.25, "granularity": 1.0, "segment_size": 24}, "demonstrations": 5, "seed": 2},
        {"config": {"rate": 0.6, "granularity": 1.5, "instruction_rate": 0.7}, "demonstrations": 4, "seed": 3},
        {"config": {"rate": 0.2, "segment_size": 5}, "demonstrations": 8, "seed": 4},
    ]


def main(out_dir: str) -> None:
    rng = random.Random(2310)
    cases = {"nll": nll_cases(rng), "perplexity": perplexity_cases(rng), "budget": budget_cases(rng),
             "tokens": token_cases(rng), "e2e": e2e_cases()}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "lingua_cases.json").write_text(json.dumps(cases, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
