"""Toy preference data in the usual (input_ids, labels) layout.

Prompt and padding positions carry the label IGNORE_INDEX; only response tokens are scored.
Chosen responses echo the prompt's last token; rejected responses are random tokens.
"""
from __future__ import annotations

import torch

IGNORE_INDEX = -100
PAD = 0


def _row(prompt: list[int], response: list[int], width: int) -> tuple[list[int], list[int]]:
    ids = prompt + response
    labels = [IGNORE_INDEX] * len(prompt) + response
    pad = width - len(ids)
    return ids + [PAD] * pad, labels + [IGNORE_INDEX] * pad


def preference_batch(n: int, vocab_size: int, seed: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)

    def ri(lo: int, hi: int) -> int:
        return int(torch.randint(lo, hi + 1, (1,), generator=g))

    rows = []
    for _ in range(n):
        prompt = [ri(1, vocab_size - 1) for _ in range(ri(2, 5))]
        chosen = [prompt[-1]] * ri(1, 6)
        rejected = [ri(1, vocab_size - 1) for _ in range(ri(1, 6))]
        rows.append((prompt, chosen, rejected))
    width = max(len(p) + max(len(c), len(r)) for p, c, r in rows)
    out: dict[str, list] = {"chosen_input_ids": [], "chosen_labels": [], "rejected_input_ids": [], "rejected_labels": []}
    for p, c, r in rows:
        for side, resp in (("chosen", c), ("rejected", r)):
            ids, labels = _row(p, resp, width)
            out[f"{side}_input_ids"].append(ids)
            out[f"{side}_labels"].append(labels)
    return {k: torch.tensor(v, dtype=torch.long) for k, v in out.items()}
