"""Batches of prompt + response rows."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class Batch:
    """B rows, each a prompt followed by a response, right-padded with 0.

    input_ids:     (B, T) int64.
    response_mask: (B, T) bool, True at the response's tokens.
    """

    input_ids: torch.Tensor
    response_mask: torch.Tensor


def collate(prompts: list[list[int]], responses: list[list[int]]) -> Batch:
    width = max(len(p) + len(r) for p, r in zip(prompts, responses, strict=True))
    ids = torch.zeros(len(prompts), width, dtype=torch.long)
    mask = torch.zeros(len(prompts), width, dtype=torch.bool)
    for b, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        ids[b, : len(p) + len(r)] = torch.tensor(p + r, dtype=torch.long)
        mask[b, len(p): len(p) + len(r)] = True
    return Batch(ids, mask)
