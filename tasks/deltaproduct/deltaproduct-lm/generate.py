"""Greedy continuation with the recurrent cache: one chunkwise prefill, then one token at a time.

    python generate.py --new-tokens 8
"""
from __future__ import annotations

import argparse

import torch

from deltaprod.cache import RecurrentCache
from deltaprod.config import ModelConfig
from deltaprod.data import pad_left, word_problem
from deltaprod.model import DeltaProductLM
from train import build


@torch.no_grad()
def greedy_generate(model: DeltaProductLM, ids: torch.Tensor, attention_mask: torch.Tensor,
                    new_tokens: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Continue left-padded prompts greedily.

    Returns the new token ids (B, new_tokens) and the logits that chose them (B, new_tokens, vocab_size).
    """
    cache = RecurrentCache()
    logits = model(ids, attention_mask=attention_mask, cache=cache)[:, -1]
    chosen, all_logits = [], []
    ones = torch.ones(ids.shape[0], 1, dtype=torch.bool)
    for _ in range(new_tokens):
        nxt = logits.argmax(-1, keepdim=True)
        chosen.append(nxt)
        all_logits.append(logits)
        logits = model(nxt, attention_mask=ones, cache=cache)[:, -1]
    return torch.cat(chosen, dim=1), torch.stack(all_logits, dim=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--new-tokens", type=int, default=8)
    args = parser.parse_args()
    model = build(ModelConfig())
    words, _ = word_problem(3, 6, torch.Generator().manual_seed(0))
    ids, mask = pad_left([words[0, :6], words[1, :3], words[2, :5]])
    tokens, _ = greedy_generate(model, ids, mask, args.new_tokens)
    print(tokens)


if __name__ == "__main__":
    main()
