"""Synthetic preference data with a length confound.

The preferred response copies the prompt in reverse order; the dispreferred one is random.
Response lengths are drawn independently, so longer responses are not better: a length-normalised
reward should not favour them.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

PAD = 0


@dataclass
class PairBatch:
    prompts: torch.Tensor          # (B, P)
    chosen: torch.Tensor           # (B, Lw), right-padded with PAD
    chosen_mask: torch.Tensor      # (B, Lw) bool, True on real response tokens
    rejected: torch.Tensor         # (B, Ll)
    rejected_mask: torch.Tensor    # (B, Ll) bool

    def lengths(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.chosen_mask.sum(-1), self.rejected_mask.sum(-1)


def _pad(rows: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(r.numel() for r in rows)
    out = torch.full((len(rows), width), PAD, dtype=torch.long)
    mask = torch.zeros(len(rows), width, dtype=torch.bool)
    for i, r in enumerate(rows):
        out[i, : r.numel()] = r
        mask[i, : r.numel()] = True
    return out, mask


def make_pairs(n: int, vocab_size: int, prompt_len: int = 4, max_len: int = 8, seed: int = 0) -> PairBatch:
    g = torch.Generator().manual_seed(seed)
    prompts = torch.randint(1, vocab_size, (n, prompt_len), generator=g)
    chosen, rejected = [], []
    for i in range(n):
        lw = int(torch.randint(1, max_len + 1, (1,), generator=g))
        ll = int(torch.randint(1, max_len + 1, (1,), generator=g))
        rev = prompts[i].flip(0)
        chosen.append(rev.repeat(max_len // prompt_len + 1)[:lw])
        rejected.append(torch.randint(1, vocab_size, (ll,), generator=g))
    cw, mw = _pad(chosen)
    cl, ml = _pad(rejected)
    return PairBatch(prompts, cw, mw, cl, ml)


def minibatches(data: PairBatch, batch_size: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    n = data.prompts.shape[0]
    while True:
        perm = torch.randperm(n, generator=g)
        for s in range(0, n - batch_size + 1, batch_size):
            idx = perm[s : s + batch_size]
            yield PairBatch(data.prompts[idx], data.chosen[idx], data.chosen_mask[idx],
                            data.rejected[idx], data.rejected_mask[idx])
