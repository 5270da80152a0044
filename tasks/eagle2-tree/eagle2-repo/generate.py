"""Compare EAGLE-2 decoding with plain greedy decoding of the tiny target on a few random prompts.

    python generate.py [--depth 4] [--top-k 3] [--total-tokens 8] [--max-new-tokens 24]
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import torch

from eagle2.config import EagleConfig
from eagle2.draft import make_models
from eagle2.model import greedy_generate
from eagle2.tree import eagle2_generate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--top-k", type=int, default=3)
    ap.add_argument("--total-tokens", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    cfg = EagleConfig(args.depth, args.top_k, args.total_tokens, args.max_new_tokens)
    target, draft = make_models(seed=args.seed)
    g = torch.Generator().manual_seed(args.seed)
    for _ in range(4):
        prompt = torch.randint(0, target.vocab_size, (5,), generator=g).tolist()
        ref = greedy_generate(target, prompt, cfg.max_new_tokens)
        out = eagle2_generate(target, draft, prompt, cfg)
        print(f"prompt {prompt}: same as greedy: {out.tokens == ref}; target passes {out.target_calls} "
              f"(greedy: {cfg.max_new_tokens}); tokens per pass {out.mean_accepted:.2f}")
        sampled = eagle2_generate(target, draft, prompt, replace(cfg, greedy=False, seed=args.seed))
        print(f"  speculative sampling: {sampled.tokens}; target passes {sampled.target_calls}; "
              f"tokens per pass {sampled.mean_accepted:.2f}")


if __name__ == "__main__":
    main()
