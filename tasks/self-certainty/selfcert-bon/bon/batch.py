"""Padded batches of prompt + response sequences, the layout the model and the scoring code share."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from bon.vocab import BOS, PAD


@dataclass(frozen=True)
class Batch:
    """B sequences, each BOS, its prompt, then its response, right-padded with PAD to a common length T.

    input_ids:      (B, T) int64 token ids.
    attention_mask: (B, T) bool, True at the real tokens (BOS, prompt and response), False at padding.
    response_mask:  (B, T) bool, True exactly at the positions that hold a response token (its EOS included
                    when the response has one).
    """

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    response_mask: torch.Tensor

    @property
    def size(self) -> int:
        """B."""
        return int(self.input_ids.shape[0])

    def response_lengths(self) -> torch.Tensor:
        """(B,) int64, the number of response tokens of each row."""
        return self.response_mask.sum(dim=1)


def collate(prompts: Sequence[Sequence[int]], responses: Sequence[Sequence[int]]) -> Batch:
    """The batch of rows [BOS, *prompts[b], *responses[b]], right-padded with PAD.

    Raises:
        ValueError: if there are no rows or the two lists differ in length.
    """
    if len(prompts) != len(responses) or not prompts:
        raise ValueError(f"need as many prompts as responses, at least one (got {len(prompts)}, {len(responses)})")
    rows = [[BOS, *p, *r] for p, r in zip(prompts, responses, strict=True)]
    width = max(len(r) for r in rows)
    input_ids = torch.full((len(rows), width), PAD, dtype=torch.long)
    attention = torch.zeros(len(rows), width, dtype=torch.bool)
    response = torch.zeros(len(rows), width, dtype=torch.bool)
    for b, (row, prompt) in enumerate(zip(rows, prompts, strict=True)):
        input_ids[b, :len(row)] = torch.tensor(row, dtype=torch.long)
        attention[b, :len(row)] = True
        response[b, 1 + len(prompt):len(row)] = True
    return Batch(input_ids, attention, response)
