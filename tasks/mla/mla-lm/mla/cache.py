"""The inference cache of one MLA layer: only the compressed latents and the shared rotary keys."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from mla.config import ModelConfig


@dataclass(frozen=True)
class LatentCache:
    """What one MLA layer keeps for the tokens generated so far (positions 0 .. length - 1).

    latent: (B, L, kv_lora_rank), the compressed key-value latent c^KV of each cached token, after the layer's
        `kv_norm`.
    k_rope: (B, L, rope_head_dim), the decoupled key k^R of each cached token, rotary embedding applied at the
        token's position.
    """

    latent: torch.Tensor
    k_rope: torch.Tensor

    @property
    def length(self) -> int:
        """Number of cached tokens L."""
        return self.latent.shape[1]

    @classmethod
    def empty(cls, batch_size: int, cfg: ModelConfig, dtype: torch.dtype = torch.float32) -> LatentCache:
        """A cache holding no token yet."""
        return cls(torch.zeros(batch_size, 0, cfg.kv_lora_rank, dtype=dtype),
                   torch.zeros(batch_size, 0, cfg.rope_head_dim, dtype=dtype))

    def extend(self, latent: torch.Tensor, k_rope: torch.Tensor) -> LatentCache:
        """A new cache with the given tokens' entries, (B, T, kv_lora_rank) and (B, T, rope_head_dim), appended."""
        return LatentCache(torch.cat([self.latent, latent], dim=1), torch.cat([self.k_rope, k_rope], dim=1))

    def elements_per_token(self) -> int:
        """Cached elements per token: kv_lora_rank + rope_head_dim."""
        return self.latent.shape[-1] + self.k_rope.shape[-1]
