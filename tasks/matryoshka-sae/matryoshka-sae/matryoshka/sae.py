"""The Matryoshka SAE with BatchTopK sparsity: the activation, the SAE module with its nested-dictionary loss and
its training statistics, and one training step."""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from matryoshka.config import SAEConfig
from matryoshka.data import ActivationBatch
from matryoshka.ops import reconstruction_error, topk_per_row


def batch_topk(pre_acts: torch.Tensor, k: int) -> torch.Tensor:
    """The BatchTopK activation of a batch (Section 2.3).

    Args:
        pre_acts: (n_tokens, d_sae) floating tensor of encoder pre-activations.
        k: the mean number of active latents per token, k >= 1.

    Returns:
        (n_tokens, d_sae) tensor, dtype of `pre_acts`.

    Raises:
        ValueError: if `pre_acts` is not 2-D.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


@dataclass
class SAEOutput:
    """What the SAE computes for activations x of shape (n_tokens, d_model)."""

    pre_acts: torch.Tensor  # (n_tokens, d_sae): the encoder's pre-activations
    features: torch.Tensor  # (n_tokens, d_sae): the latents' activations
    reconstructions: list[torch.Tensor]  # one (n_tokens, d_model) per nested dictionary, smallest first


@dataclass
class LossTerms:
    """The training loss of a batch and its parts; every loss is a 0-dim tensor of the parameters' dtype."""

    total: torch.Tensor  # the loss minimised in training: reconstruction + aux_coefficient * aux
    reconstruction: torch.Tensor  # the reconstruction term of the Matryoshka loss
    prefix_errors: torch.Tensor  # (n_groups,): the reconstruction error of each nested dictionary, smallest first
    aux: torch.Tensor  # the auxiliary loss L_aux, before its coefficient
    features: torch.Tensor  # (n_tokens, d_sae): the batch's latent activations, detached


class MatryoshkaSAE(nn.Module):
    """A Matryoshka sparse autoencoder (Section 3) with BatchTopK activations (Section 2.3).

    Parameters (dtype `cfg.dtype`): W_enc (d_model, d_sae), b_enc (d_sae,), W_dec (d_sae, d_model) whose row i is
    the decoder direction of latent i, b_dec (d_model,). Buffers: `threshold` (0-dim, dtype `cfg.dtype`) and
    `threshold_batches` (0-dim int64), the inference threshold and the number of training batches it was
    estimated from; `batches_since_fired` (d_sae,) int64, per latent the number of consecutive training batches
    in which it has not fired.
    """

    def __init__(self, cfg: SAEConfig, generator: torch.Generator | None = None) -> None:
        super().__init__()
        self.cfg = cfg
        dtype = getattr(torch, cfg.dtype)
        g = generator if generator is not None else torch.Generator().manual_seed(0)
        directions = torch.randn(cfg.d_sae, cfg.d_model, generator=g, dtype=torch.float64)
        directions = directions / directions.norm(dim=1, keepdim=True)
        self.W_enc = nn.Parameter(directions.T.contiguous().to(dtype))
        self.b_enc = nn.Parameter(torch.zeros(cfg.d_sae, dtype=dtype))
        self.W_dec = nn.Parameter(directions.to(dtype))
        self.b_dec = nn.Parameter(torch.zeros(cfg.d_model, dtype=dtype))
        self.register_buffer("threshold", torch.zeros((), dtype=dtype))
        self.register_buffer("threshold_batches", torch.zeros((), dtype=torch.int64))
        self.register_buffer("batches_since_fired", torch.zeros(cfg.d_sae, dtype=torch.int64))

    def dead_latents(self) -> torch.Tensor:
        """(d_sae,) bool: the latents that count as dead (see `SAEConfig.dead_after_batches`)."""
        return self.batches_since_fired >= self.cfg.dead_after_batches

    def encode(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Encode activations; in training mode (`self.training`) x is one batch of tokens.

        Args:
            x: (n_tokens, d_model) in training mode, (..., d_model) in eval mode; dtype of the parameters.

        Returns:
            (pre_acts, features), each (..., d_sae). The SAE's buffers are not changed.

        Raises:
            ValueError: in training mode, if x is not 2-D.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def decode(self, features: torch.Tensor, width: int | None = None) -> torch.Tensor:
        """Reconstruct activations from the first `width` latents.

        Args:
            features: (..., d_sae) latent activations.
            width: the number of leading latents used, 1 <= width <= d_sae; None for all of them.

        Returns:
            (..., d_model) reconstruction.

        Raises:
            ValueError: if width is out of range.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> SAEOutput:
        """Args:
            x: activations, as for `encode`.

        Returns:
            SAEOutput for x, with the reconstruction of every nested dictionary.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def loss(self, x: torch.Tensor) -> LossTerms:
        """The training loss of Section 3 (with the auxiliary loss) on one batch of tokens.

        Args:
            x: (n_tokens, d_model) activations, dtype of the parameters; the SAE is in training mode.

        Returns:
            LossTerms of the batch. The SAE's buffers are not changed.

        Raises:
            ValueError: if x is not 2-D or its last dimension is not d_model.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    @torch.no_grad()
    def update_statistics(self, features: torch.Tensor) -> None:
        """Update the buffers with one training batch's latent activations.

        Args:
            features: (n_tokens, d_sae) the batch's activations, as `encode` returns them in training mode.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError


def train_step(sae: MatryoshkaSAE, optimizer: torch.optim.Optimizer, batch: ActivationBatch) -> LossTerms:
    """One training step of the SAE on a padded batch (Section 4).

    Args:
        sae: the SAE, in training mode; `optimizer` holds all its parameters.
        optimizer: a torch optimizer over `sae.parameters()`.
        batch: the padded batch of activations.

    Returns:
        The LossTerms of the batch at the parameters before the update, detached.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
