"""Synthetic activations with planted hierarchical features, served as padded batches of sequences.

`HierarchicalFeatures` draws each token's activation as a sparse non-negative combination of hidden unit
directions: `n_parents` parent features, each with `n_children` children. A child can only be present when its
parent is, and at most one child of a parent is present at a time (the "is a kind of" structure under which
feature absorption happens). `ActivationStream` cuts the tokens into sequences of random lengths, pads them to
`max_len` and scales everything by one fixed scalar so that real tokens have mean squared norm 1.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class ActivationBatch:
    """A padded batch of activation sequences.

    `acts` is (batch, max_len, d_model); `mask` is (batch, max_len) bool, True at real tokens. Padded positions
    hold zeros and are not activations of any token.
    """

    acts: torch.Tensor
    mask: torch.Tensor

    def tokens(self) -> torch.Tensor:
        """(n_tokens, d_model): the real tokens' activations, in row-major order of (sequence, position)."""
        return self.acts[self.mask]

    @property
    def n_tokens(self) -> int:
        return int(self.mask.sum())


class HierarchicalFeatures:
    """A fixed random generative model of activations (all randomness from `seed`)."""

    def __init__(self, d_model: int, n_parents: int = 4, n_children: int = 3, p_parent: float = 0.3,
                 p_child: float = 0.8, noise: float = 0.01, seed: int = 0) -> None:
        g = torch.Generator().manual_seed(seed)
        n_features = n_parents * (1 + n_children)
        directions = torch.randn(n_features, d_model, generator=g, dtype=torch.float64)
        self.directions = directions / directions.norm(dim=1, keepdim=True)  # parents first, then children
        self.n_parents, self.n_children = n_parents, n_children
        self.p_parent, self.p_child, self.noise = p_parent, p_child, noise
        self.d_model = d_model

    def parent_directions(self) -> torch.Tensor:
        """(n_parents, d_model) unit directions of the parent features."""
        return self.directions[: self.n_parents]

    def sample(self, n: int, g: torch.Generator) -> torch.Tensor:
        """(n, d_model) float64 activations drawn with the generator `g`."""
        parent = torch.rand(n, self.n_parents, generator=g, dtype=torch.float64) < self.p_parent
        has_child = parent & (torch.rand(n, self.n_parents, generator=g, dtype=torch.float64) < self.p_child)
        which = torch.randint(self.n_children, (n, self.n_parents), generator=g)
        child = torch.zeros(n, self.n_parents, self.n_children, dtype=torch.bool)
        child.scatter_(2, which.unsqueeze(-1), has_child.unsqueeze(-1))
        present = torch.cat([parent, child.reshape(n, -1)], dim=1)
        magnitude = 0.5 + torch.rand(n, present.shape[1], generator=g, dtype=torch.float64)
        noise = self.noise * torch.randn(n, self.d_model, generator=g, dtype=torch.float64)
        return (present * magnitude) @ self.directions + noise


class ActivationStream:
    """Padded batches of normalised activations: each token divided by the fixed scale s."""

    def __init__(self, source: HierarchicalFeatures, dtype: torch.dtype = torch.float32, seed: int = 0,
                 calibration_size: int = 4096) -> None:
        self.source = source
        self.dtype = dtype
        self.generator = torch.Generator().manual_seed(seed)
        sample = source.sample(calibration_size, self.generator)
        self.scale = float(sample.pow(2).sum(dim=-1).mean().sqrt())  # s

    def next_batch(self, batch_size: int, max_len: int) -> ActivationBatch:
        """A batch of `batch_size` sequences of 1 to `max_len` real tokens, padded to `max_len`."""
        lengths = torch.randint(1, max_len + 1, (batch_size,), generator=self.generator)
        mask = torch.arange(max_len).unsqueeze(0) < lengths.unsqueeze(1)
        acts = torch.zeros(batch_size, max_len, self.source.d_model, dtype=torch.float64)
        acts[mask] = self.source.sample(int(mask.sum()), self.generator) / self.scale
        return ActivationBatch(acts=acts.to(self.dtype), mask=mask)
