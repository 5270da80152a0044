"""The JumpReLU SAE: JumpReLU and the step function with their pseudo-derivatives, the SAE module, its loss and
one training step."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from jumprelu.config import SAEConfig
from jumprelu.kernels import heaviside, rectangle


class JumpReLU(torch.autograd.Function):
    """JumpReLU_theta(z), trainable in theta (Eq. (4), Section 4). Use as `JumpReLU.apply(z, threshold, bandwidth)`."""

    @staticmethod
    def forward(ctx: Any, z: torch.Tensor, threshold: torch.Tensor, bandwidth: float) -> torch.Tensor:
        """Args:
            z: (..., d_sae) floating tensor of pre-activations.
            threshold: (d_sae,) tensor of positive thresholds theta, dtype of `z`.
            bandwidth: epsilon > 0.

        Returns:
            (..., d_sae) tensor, dtype of `z`.
        """
        ctx.save_for_backward(z, threshold)
        ctx.bandwidth = bandwidth
        return z * heaviside(z - threshold)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        """Args:
            grad_output: (..., d_sae), the gradient of the loss with respect to the output.

        Returns:
            The gradients with respect to `z` ((..., d_sae)) and `threshold` ((d_sae,)), and None for `bandwidth`.
        """
        z, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        grad_z = heaviside(z - threshold) * grad_output
        pseudo = -(threshold / bandwidth) * rectangle((z - threshold) / bandwidth)
        grad_threshold = (pseudo * grad_output).reshape(-1, z.shape[-1]).sum(dim=0)
        return grad_z, grad_threshold, None


class Step(torch.autograd.Function):
    """The Heaviside step H(z - theta), trainable in theta (Eq. (8), Section 4). Use as `Step.apply(z, threshold,
    bandwidth)`."""

    @staticmethod
    def forward(ctx: Any, z: torch.Tensor, threshold: torch.Tensor, bandwidth: float) -> torch.Tensor:
        """Args:
            z: (..., d_sae) floating tensor of pre-activations.
            threshold: (d_sae,) tensor of positive thresholds theta, dtype of `z`.
            bandwidth: epsilon > 0.

        Returns:
            (..., d_sae) tensor, dtype of `z`.
        """
        ctx.save_for_backward(z, threshold)
        ctx.bandwidth = bandwidth
        return heaviside(z - threshold)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        """Args:
            grad_output: (..., d_sae), the gradient of the loss with respect to the output.

        Returns:
            The gradients with respect to `z` ((..., d_sae)) and `threshold` ((d_sae,)), and None for `bandwidth`.
        """
        z, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        grad_z = torch.zeros_like(z)
        pseudo = -(1.0 / bandwidth) * rectangle((z - threshold) / bandwidth)
        grad_threshold = (pseudo * grad_output).reshape(-1, z.shape[-1]).sum(dim=0)
        return grad_z, grad_threshold, None


@dataclass
class SAEOutput:
    """What the SAE computes for activations x of shape (..., d_model)."""

    pre_activations: torch.Tensor  # (..., d_sae): pi(x)
    features: torch.Tensor  # (..., d_sae): f(x)
    reconstruction: torch.Tensor  # (..., d_model): x_hat(f(x))


@dataclass
class LossTerms:
    """The loss of a batch and its parts, each a 0-dim tensor of the parameters' dtype."""

    total: torch.Tensor  # the loss minimised in training: reconstruction + sparsity
    reconstruction: torch.Tensor  # the reconstruction error term
    l0: torch.Tensor  # the L0 norm of the features (Eq. (8))
    sparsity: torch.Tensor  # the sparsity penalty term (includes the sparsity coefficient)


class JumpReLUSAE(nn.Module):
    """A sparse autoencoder with JumpReLU activations (Section 3).

    Parameters (dtype `cfg.dtype`): W_enc (d_model, d_sae), b_enc (d_sae,), W_dec (d_sae, d_model) whose row i is
    the decoder direction d_i of feature i, b_dec (d_model,), and log_threshold (d_sae,), the logarithm of the
    thresholds theta.
    """

    def __init__(self, cfg: SAEConfig, generator: torch.Generator | None = None) -> None:
        super().__init__()
        self.cfg = cfg
        self.bandwidth = cfg.bandwidth
        dtype = getattr(torch, cfg.dtype)
        g = generator if generator is not None else torch.Generator().manual_seed(0)
        directions = torch.randn(cfg.d_sae, cfg.d_model, generator=g, dtype=torch.float64)
        directions = directions / directions.norm(dim=1, keepdim=True)
        self.W_enc = nn.Parameter(directions.T.contiguous().to(dtype))
        self.b_enc = nn.Parameter(torch.zeros(cfg.d_sae, dtype=dtype))
        self.W_dec = nn.Parameter(directions.to(dtype))
        self.b_dec = nn.Parameter(torch.zeros(cfg.d_model, dtype=dtype))
        self.log_threshold = nn.Parameter(torch.full((cfg.d_sae,), math.log(cfg.threshold_init), dtype=dtype))

    @property
    def threshold(self) -> torch.Tensor:
        """(d_sae,) tensor: theta, differentiable with respect to `log_threshold`."""
        return self.log_threshold.exp()

    def encode(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Args:
            x: (..., d_model) activations, dtype of the parameters.

        Returns:
            (pre_activations, features), each (..., d_sae).
        """
        pre_activations = x @ self.W_enc + self.b_enc
        features = JumpReLU.apply(pre_activations, self.threshold, self.bandwidth)
        return pre_activations, features

    def decode(self, features: torch.Tensor) -> torch.Tensor:
        """Args:
            features: (..., d_sae).

        Returns:
            (..., d_model) reconstruction.
        """
        return features @ self.W_dec + self.b_dec

    def forward(self, x: torch.Tensor) -> SAEOutput:
        """Args:
            x: (..., d_model) activations, dtype of the parameters.

        Returns:
            SAEOutput for x.
        """
        pre_activations, features = self.encode(x)
        return SAEOutput(pre_activations=pre_activations, features=features, reconstruction=self.decode(features))

    def loss(self, x: torch.Tensor, sparsity_coefficient: float) -> LossTerms:
        """The training loss of Eq. (7) on a batch, each term averaged over the batch.

        Args:
            x: (batch, d_model) activations, dtype of the parameters.
            sparsity_coefficient: lambda >= 0.

        Returns:
            LossTerms of the batch.

        Raises:
            ValueError: if x is not 2-D or its last dimension is not d_model.
        """
        if x.dim() != 2 or x.shape[-1] != self.cfg.d_model:
            raise ValueError(f"expected activations of shape (batch, {self.cfg.d_model}), got {tuple(x.shape)}")
        out = self(x)
        reconstruction = (x - out.reconstruction).pow(2).sum(dim=-1).mean()
        l0 = Step.apply(out.pre_activations, self.threshold, self.bandwidth).sum(dim=-1).mean()
        sparsity = sparsity_coefficient * l0
        return LossTerms(total=reconstruction + sparsity, reconstruction=reconstruction, l0=l0, sparsity=sparsity)


def train_step(sae: JumpReLUSAE, optimizer: torch.optim.Optimizer, x: torch.Tensor, sparsity_coefficient: float,
               unit_norm_decoder: bool) -> LossTerms:
    """One optimisation step of the SAE on the batch `x` (see `TrainConfig.unit_norm_decoder` for the decoder).

    Args:
        sae: the SAE; `optimizer` holds all its parameters.
        optimizer: a torch optimizer over `sae.parameters()`.
        x: (batch, d_model) activations.
        sparsity_coefficient: lambda for this step.
        unit_norm_decoder: whether the rows of W_dec are kept at unit norm.

    Returns:
        The LossTerms of `x` at the parameters before the update, detached.
    """
    optimizer.zero_grad(set_to_none=True)
    terms = sae.loss(x, sparsity_coefficient)
    terms.total.backward()
    if unit_norm_decoder and sae.W_dec.grad is not None:
        with torch.no_grad():
            rows = sae.W_dec / sae.W_dec.norm(dim=-1, keepdim=True)
            parallel = (sae.W_dec.grad * rows).sum(dim=-1, keepdim=True) * rows
            sae.W_dec.grad.sub_(parallel)
    optimizer.step()
    if unit_norm_decoder:
        with torch.no_grad():
            sae.W_dec.div_(sae.W_dec.norm(dim=-1, keepdim=True))
    return LossTerms(total=terms.total.detach(), reconstruction=terms.reconstruction.detach(),
                     l0=terms.l0.detach(), sparsity=terms.sparsity.detach())
