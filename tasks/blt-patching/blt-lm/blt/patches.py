"""The segmentation of byte sequences into patches."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Patches:
    """A batch of byte sequences cut into contiguous patches.

    patch_ids: (B, T) int64; patch_ids[b, t] is the index (0, 1, ...) of the patch of sequence b that holds byte t.
    n_patches: (B,) int64; number of patches of each sequence.
    lengths: (B, P) int64 with P = max(n_patches); lengths[b, j] is the number of bytes of patch j of
        sequence b, 0 for the padding slots j >= n_patches[b].
    """

    patch_ids: torch.Tensor
    n_patches: torch.Tensor
    lengths: torch.Tensor

    @property
    def num_slots(self) -> int:
        """P: the number of patch slots per sequence (the largest patch count of the batch)."""
        return int(self.lengths.shape[1])

    @property
    def valid(self) -> torch.Tensor:
        """(B, P) bool, True for the real patches, False for the padding slots."""
        slots = torch.arange(self.num_slots, device=self.n_patches.device)
        return slots.unsqueeze(0) < self.n_patches.unsqueeze(1)
