"""The byte-level model: patcher -> local encoder -> latent global transformer -> byte head.

The byte head is a simplification of this repository (not the paper's local decoder): the next byte after
position t is predicted from the encoder's state of byte t plus the global output of the patch *before* the
patch of byte t, so that no prediction sees the patch it belongs to.
"""
from __future__ import annotations

import torch
from torch import nn

from blt.config import BYTE_VOCAB, ModelConfig
from blt.entropy_model import ByteLM
from blt.layers import TransformerBlock, byte_cross_entropy
from blt.local_encoder import LocalEncoder, compute_patches
from blt.patches import Patches


class ByteLatentModel(nn.Module):
    """Byte Latent Transformer (encoder side) with a frozen entropy model that decides the patches."""

    def __init__(self, cfg: ModelConfig, entropy_model: ByteLM) -> None:
        super().__init__()
        self.cfg = cfg
        self.entropy_model = entropy_model.requires_grad_(False)
        enc = cfg.encoder
        self.encoder = LocalEncoder(enc)
        self.global_blocks = nn.ModuleList(
            TransformerBlock(enc.d_patch, cfg.global_heads, None, enc.norm_eps) for _ in range(cfg.global_layers))
        self.global_norm = nn.LayerNorm(enc.d_patch, eps=enc.norm_eps)
        self.down = nn.Linear(enc.d_patch, enc.d_local)
        self.head = nn.Linear(enc.d_local, BYTE_VOCAB)

    def patch(self, tokens: torch.Tensor) -> Patches:
        """Entropy patching of a batch with the frozen entropy model."""
        return compute_patches(tokens, self.entropy_model, self.cfg.patching)

    def forward(self, tokens: torch.Tensor, patches: Patches | None = None) -> torch.Tensor:
        """(B, T) bytes -> (B, T, 256) logits; row t predicts byte t + 1."""
        patches = self.patch(tokens) if patches is None else patches
        patch_reps, byte_states = self.encoder(tokens, patches)
        g = patch_reps
        for block in self.global_blocks:
            g = block(g)
        g = self.down(self.global_norm(g))
        # the global output of the previous patch (zero for the first patch)
        previous = torch.cat([torch.zeros_like(g[:, :1]), g[:, :-1]], dim=1)
        context = torch.gather(previous, 1, patches.patch_ids.unsqueeze(-1).expand(-1, -1, g.shape[-1]))
        return self.head(byte_states + context)

    def loss(self, tokens: torch.Tensor) -> torch.Tensor:
        """Mean next-byte cross-entropy over positions 0 .. T-2."""
        logits = self(tokens)
        return byte_cross_entropy(logits[:, :-1], tokens[:, 1:])
