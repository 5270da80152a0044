"""Sampled responses grouped by query: the unit that rewards, advantages and the loss work on."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch

from gspo.data import response_mask


@dataclass(frozen=True)
class RolloutBatch:
    """N groups (one per query) of G responses each, padded to T tokens.

    prompts:      (N, P) long, the query tokens.
    answers:      (N,) long, the ground-truth answer digits.
    responses:    (N, G, T) long, the response tokens y_i, PAD after the end.
    lengths:      (N, G) long, |y_i|: tokens of each response (EOS included).
    old_logprobs: (N, G, T) float, log pi_old(y_{i,t} | x, y_{i,<t}) under the policy that sampled y_i;
                  0 after the end of each response.
    correct:      (N, G) bool, whether the answer of y_i is equivalent to the ground truth.
    rewards:      (N, G) float, r_i: the reward of each response.
    """

    prompts: torch.Tensor
    answers: torch.Tensor
    responses: torch.Tensor
    lengths: torch.Tensor
    old_logprobs: torch.Tensor
    correct: torch.Tensor
    rewards: torch.Tensor

    @property
    def num_groups(self) -> int:
        """N."""
        return self.responses.shape[0]

    @property
    def group_size(self) -> int:
        """G."""
        return self.responses.shape[1]

    def response_mask(self) -> torch.Tensor:
        """(N, G, T) bool: True at the |y_i| tokens of each response."""
        return response_mask(self.lengths, self.responses.shape[2])

    def select(self, index: torch.Tensor) -> RolloutBatch:
        """The groups picked by `index` over the N groups: a bool mask (N,) or long indices, in that order."""
        return RolloutBatch(*(field[index] for field in self._fields()))

    @staticmethod
    def concat(batches: Sequence[RolloutBatch]) -> RolloutBatch:
        """The groups of every batch, in order (all with the same G and T; at least one batch)."""
        if not batches:
            raise ValueError("concat needs at least one batch")
        columns = zip(*(b._fields() for b in batches), strict=True)
        return RolloutBatch(*(torch.cat(list(col), dim=0) for col in columns))

    def minibatches(self, groups: int) -> Iterator[torch.Tensor]:
        """Indices of consecutive mini-batches of `groups` groups each (the last may be smaller)."""
        for start in range(0, self.num_groups, groups):
            yield torch.arange(start, min(start + groups, self.num_groups))

    def _fields(self) -> tuple[torch.Tensor, ...]:
        return (self.prompts, self.answers, self.responses, self.lengths, self.old_logprobs, self.correct,
                self.rewards)
