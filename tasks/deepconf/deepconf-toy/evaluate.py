"""Compare plain majority voting with offline and online DeepConf on a few toy prompts.

    python evaluate.py [--traces 32] [--prompts 3] [--seed 0]

The toy model has no ground truth; the reference answer of a prompt is the majority answer of a large
independent sample (--reference-traces), and each method is scored by agreement with it.
"""
from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace

import torch

from deepconf.config import MEASURES, DeepConfConfig, OfflineConfig, OnlineConfig
from deepconf.method import deepconf_offline, deepconf_online
from deepconf.sampling import sample_traces
from deepconf.toy_lm import ToyLM
from deepconf.trace import Trace
from deepconf.vocab import DIGITS


def toy_prompts(count: int, seed: int) -> list[list[int]]:
    """`count` prompts of three to five digit tokens."""
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(3, 6, (count,), generator=g).tolist()
    return [torch.randint(DIGITS[0], DIGITS[-1] + 1, (n,), generator=g).tolist() for n in lengths]


def majority(traces: list[Trace]) -> str | None:
    """Plain majority voting over the traces with an answer (ties: first seen)."""
    counts = Counter(t.answer for t in traces if t.answer is not None)
    return counts.most_common(1)[0][0] if counts else None


def evaluate(cfg: DeepConfConfig, prompts: list[list[int]], traces: int, reference_traces: int,
             seed: int) -> None:
    lm = ToyLM(cfg.model)
    for p, prompt in enumerate(prompts):
        g = torch.Generator().manual_seed(seed + 1000 * p)
        reference = majority(sample_traces(lm, prompt, g, cfg.sampling, reference_traces))
        sample = sample_traces(lm, prompt, g, cfg.sampling, traces)
        tokens = sum(t.num_tokens for t in sample)
        print(f"prompt {p}: reference {reference}; majority@{traces} {majority(sample)} ({tokens} tokens)")
        for measure in MEASURES:
            for keep in (10, 90):
                vote = deepconf_offline(sample, replace(cfg, offline=OfflineConfig(measure, keep)))
                print(f"  offline {measure:>6} top-{keep:>2}%: {vote.answer} ({len(vote.voters)} votes)")
        for keep in (10, 90):
            online = replace(cfg, online=replace(cfg.online, budget=traces, keep_percent=keep))
            result = deepconf_online(lm, prompt, g, online)
            stopped = sum(t.stopped for t in result.traces)
            print(f"  online keep {keep:>2}%: {result.vote.answer} after {len(result.traces)} traces ({stopped} "
                  f"stopped early), {result.num_tokens} tokens, consensus {result.consensus:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=32)
    parser.add_argument("--prompts", type=int, default=3)
    parser.add_argument("--reference-traces", type=int, default=256)
    parser.add_argument("--warmup", type=int, default=OnlineConfig.warmup_traces)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cfg = DeepConfConfig(online=OnlineConfig(warmup_traces=args.warmup))
    evaluate(cfg, toy_prompts(args.prompts, args.seed), args.traces, args.reference_traces, args.seed)


if __name__ == "__main__":
    main()
