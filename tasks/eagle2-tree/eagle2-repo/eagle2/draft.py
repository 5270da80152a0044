"""The EAGLE draft model: one transformer block that predicts the target's next feature from the current feature
and the token one step ahead. The target's LM head turns a predicted feature into the draft's distribution."""

from __future__ import annotations

import torch

from .model import Block, TargetLM, layer_norm, rounded


class FeatureDraft(torch.nn.Module):
    """Row i of a draft pass reads (f, t): the feature f of the token *before* token t and token t itself, and
    returns the predicted feature of token t (the target's LM head applied to it gives the draft's distribution of
    the token after t). A row sits at token t's position.

    Built from the target it imitates: it shares the target's token embedding, positions and LM head, copies the
    target's first block with small rounded noise, and fuses the incoming feature through a learned projection.
    `calls` counts forward passes."""

    def __init__(self, target: TargetLM, seed: int = 1, noise: float = 0.15) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        h = target.hidden
        self.target_ref = [target]
        self.calls = 0
        self.fuse = torch.nn.Parameter(rounded(g, h, h, scale=0.3 * h**-0.5))
        self.block = Block(g, h)
        with torch.no_grad():
            for p, q in zip(self.block.parameters(), target.blocks[0].parameters()):
                p.copy_(q + rounded(g, *q.shape, scale=noise * q.abs().mean().item()))
        self.requires_grad_(False)

    @torch.no_grad()
    def forward(self, features: torch.Tensor, tokens: torch.Tensor, position_ids: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        """features: (n, hidden) float64; tokens, position_ids: (n,) int64; mask: (n, n) bool (True = row i may
        attend to row j). Returns the predicted features (n, hidden) float64. No cache: every call reads all of
        its rows."""
        self.calls += 1
        target = self.target_ref[0]
        x = target.embed[tokens] + target.pos[position_ids] + features @ self.fuse
        x, _ = self.block(x, mask)
        return layer_norm(x)

    def probs(self, predicted: torch.Tensor) -> torch.Tensor:
        """The draft's next-token distributions (..., vocab) float64 from predicted features (..., hidden)."""
        return torch.softmax(self.target_ref[0].lm_head(predicted), dim=-1)


def make_models(vocab_size: int = 16, seed: int = 0, noise: float = 0.15) -> tuple[TargetLM, FeatureDraft]:
    """A (target, draft) pair fixed by seed."""
    target = TargetLM(vocab_size=vocab_size, seed=seed)
    return target, FeatureDraft(target, seed=seed + 1, noise=noise)
