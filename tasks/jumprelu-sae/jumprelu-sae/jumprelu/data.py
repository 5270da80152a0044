"""Synthetic "language-model activations": sparse non-negative combinations of hidden directions.

`ToyActivations` draws activations x = b + sum_j c_j u_j + noise from `n_latents` hidden unit directions u_j in
R^d_model (more directions than dimensions, as in superposition), each present with probability
`p_active` and with an exponential magnitude c_j. `ActivationStream` serves batches of them, scaled by one
fixed scalar so that the mean squared L2 norm of the served activations is 1.
"""
from __future__ import annotations

import torch


class ToyActivations:
    """A fixed random generative model of activations (all randomness from `seed`)."""

    def __init__(self, d_model: int, n_latents: int, p_active: float = 0.05, noise: float = 0.01,
                 seed: int = 0) -> None:
        g = torch.Generator().manual_seed(seed)
        directions = torch.randn(n_latents, d_model, generator=g, dtype=torch.float64)
        self.directions = directions / directions.norm(dim=1, keepdim=True)  # (n_latents, d_model)
        self.offset = 0.5 * torch.randn(d_model, generator=g, dtype=torch.float64)  # (d_model,)
        self.p_active = p_active
        self.noise = noise
        self.d_model = d_model
        self.n_latents = n_latents

    def sample(self, batch_size: int, g: torch.Generator) -> torch.Tensor:
        """(batch_size, d_model) float64 activations, drawn with the generator `g`."""
        present = torch.rand(batch_size, self.n_latents, generator=g, dtype=torch.float64) < self.p_active
        magnitude = torch.empty(batch_size, self.n_latents, dtype=torch.float64).exponential_(1.0, generator=g)
        codes = present * magnitude
        noise = self.noise * torch.randn(batch_size, self.d_model, generator=g, dtype=torch.float64)
        return self.offset + codes @ self.directions + noise


class ActivationStream:
    """Batches of normalised activations: x / s with s^2 the mean squared norm of a calibration sample."""

    def __init__(self, source: ToyActivations, dtype: torch.dtype = torch.float32, seed: int = 0,
                 calibration_size: int = 4096) -> None:
        self.source = source
        self.dtype = dtype
        self.generator = torch.Generator().manual_seed(seed)
        sample = source.sample(calibration_size, self.generator)
        self.scale = float(sample.pow(2).sum(dim=-1).mean().sqrt())  # s

    def next_batch(self, batch_size: int) -> torch.Tensor:
        """(batch_size, d_model) activations in `dtype`, divided by the fixed scale s."""
        return (self.source.sample(batch_size, self.generator) / self.scale).to(self.dtype)
