"""Best-of-N on the toy addition task: accuracy of each selection method and confidence measure.

    python evaluate.py [--n 16] [--prompts 12] [--seed 0] [--streaming]

A prompt is a few digits joined by "plus"; its gold answer is the last digit of their sum. The toy model often
gets it right after a short "reasoning" and sometimes drifts (a digit it writes while reasoning changes what it
answers), so sampling several responses and choosing well pays off.
"""
from __future__ import annotations

import argparse
from dataclasses import replace

import torch
from bon.answers import is_correct
from bon.config import MEASURES, BestOfNConfig, SelectionConfig
from bon.selection import best_of_n
from bon.toy_lm import ToyLM
from bon.vocab import encode


def toy_prompts(count: int, seed: int) -> tuple[list[list[int]], list[str]]:
    """`count` prompts "a plus b [plus c]" and their gold answers."""
    g = torch.Generator().manual_seed(seed)
    prompts, gold = [], []
    for _ in range(count):
        terms = torch.randint(0, 10, (int(torch.randint(2, 4, (1,), generator=g)),), generator=g).tolist()
        prompts.append(encode(" plus ".join(str(t) for t in terms) + " is"))
        gold.append(str(sum(terms) % 10))
    return prompts, gold


def accuracy(model: ToyLM, prompts: list[list[int]], gold: list[str], cfg: BestOfNConfig, seed: int) -> float:
    """Share of prompts whose selected answer is the gold one."""
    results = best_of_n(model, prompts, cfg, torch.Generator().manual_seed(seed))
    return sum(is_correct(r.selection.answer, g) for r, g in zip(results, gold, strict=True)) / len(prompts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--streaming", action="store_true")
    args = parser.parse_args(argv)
    cfg = BestOfNConfig(n=args.n, streaming=args.streaming)
    model = ToyLM(cfg.model)
    prompts, gold = toy_prompts(args.prompts, args.seed)
    single = replace(cfg, n=1, selection=SelectionConfig(method="max"))
    print(f"single sample: {accuracy(model, prompts, gold, single, args.seed):.2f}")
    majority = replace(cfg, selection=SelectionConfig("majority"))
    print(f"majority@{args.n}: {accuracy(model, prompts, gold, majority, args.seed):.2f}")
    for measure in MEASURES:
        best = replace(cfg, selection=SelectionConfig("max", measure))
        print(f"best-of-{args.n} by {measure}: {accuracy(model, prompts, gold, best, args.seed):.2f}")
    for power in (0.3, 0.5, 1.0, 2.0):
        borda = replace(cfg, selection=SelectionConfig("borda", "self_certainty", power))
        print(f"borda@{args.n} p={power}: {accuracy(model, prompts, gold, borda, args.seed):.2f}")


if __name__ == "__main__":
    main()
