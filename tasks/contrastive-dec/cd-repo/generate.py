"""Greedy decoding of the expert vs contrastive decoding (greedy and beam search) with the tiny pair.

    python generate.py [--alpha 0.1] [--beam 3] [--tokens 12]
"""

from __future__ import annotations

import argparse

import torch

from contrast.config import CDConfig
from contrast.decoding import contrastive_search
from contrast.model import make_pair


def expert_greedy(expert, prompt: list[int], n: int) -> list[int]:
    tokens: list[int] = []
    for _ in range(n):
        tokens.append(int(torch.argmax(expert.logits(prompt + tokens)[-1])))
    return tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--beam", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=12)
    args = parser.parse_args()
    expert, amateur = make_pair()
    for prompt in ([1, 2, 3], [7], [4, 4, 9]):
        print(f"prompt {prompt}")
        print(f"  expert greedy : {expert_greedy(expert, prompt, args.tokens)}")
        for beam in (1, args.beam):
            cfg = CDConfig(alpha=args.alpha, beam_size=beam, max_new_tokens=args.tokens)
            res = contrastive_search(expert, amateur, prompt, cfg)
            print(f"  CD beam {beam}     : {res.best.tokens}  score {res.best.score:.3f}")


if __name__ == "__main__":
    main()
