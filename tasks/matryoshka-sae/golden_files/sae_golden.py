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
    if pre_acts.dim() != 2:
        raise ValueError(f"pre_acts must be (n_tokens, d_sae), got shape {tuple(pre_acts.shape)}")
    acts = torch.relu(pre_acts)
    n_keep = k * acts.shape[0]
    flat = acts.reshape(-1)
    if n_keep >= flat.numel():
        return acts
    top = flat.topk(n_keep)
    return torch.zeros_like(flat).scatter(0, top.indices, top.values).reshape(acts.shape)


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
        pre_acts = (x - self.b_dec) @ self.W_enc + self.b_enc
        if self.training:
            if x.dim() != 2:
                raise ValueError(f"a training batch must be (n_tokens, d_model), got shape {tuple(x.shape)}")
            return pre_acts, batch_topk(pre_acts, self.cfg.k)
        return pre_acts, pre_acts * (pre_acts > self.threshold).to(pre_acts.dtype)

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
        width = self.cfg.d_sae if width is None else width
        if not 1 <= width <= self.cfg.d_sae:
            raise ValueError(f"width must be in [1, {self.cfg.d_sae}], got {width}")
        return features[..., :width] @ self.W_dec[:width] + self.b_dec

    def forward(self, x: torch.Tensor) -> SAEOutput:
        """Args:
            x: activations, as for `encode`.

        Returns:
            SAEOutput for x, with the reconstruction of every nested dictionary.
        """
        pre_acts, features = self.encode(x)
        reconstructions, width = [], 0
        for size in self.cfg.group_sizes:
            width += size
            reconstructions.append(self.decode(features, width))
        return SAEOutput(pre_acts=pre_acts, features=features, reconstructions=reconstructions)

    def loss(self, x: torch.Tensor) -> LossTerms:
        """The training loss of Section 3 (with the auxiliary loss) on one batch of tokens.

        Args:
            x: (n_tokens, d_model) activations, dtype of the parameters; the SAE is in training mode.

        Returns:
            LossTerms of the batch. The SAE's buffers are not changed.

        Raises:
            ValueError: if x is not 2-D or its last dimension is not d_model.
        """
        if x.dim() != 2 or x.shape[-1] != self.cfg.d_model:
            raise ValueError(f"x must be (n_tokens, {self.cfg.d_model}), got shape {tuple(x.shape)}")
        out = self(x)
        errors = torch.stack([reconstruction_error(x, x_hat) for x_hat in out.reconstructions])
        reconstruction = errors.sum()
        dead = self.dead_latents()
        aux = torch.zeros((), dtype=x.dtype)
        if bool(dead.any()):
            residual = (x - out.reconstructions[-1]).detach()
            aux_acts = topk_per_row(torch.relu(out.pre_acts[:, dead]), self.cfg.aux_k)
            aux = reconstruction_error(residual, aux_acts @ self.W_dec[dead])
        return LossTerms(total=reconstruction + self.cfg.aux_coefficient * aux, reconstruction=reconstruction,
                         prefix_errors=errors, aux=aux, features=out.features.detach())

    @torch.no_grad()
    def update_statistics(self, features: torch.Tensor) -> None:
        """Update the buffers with one training batch's latent activations.

        Args:
            features: (n_tokens, d_sae) the batch's activations, as `encode` returns them in training mode.
        """
        active = features > 0
        fired = active.any(dim=0)
        self.batches_since_fired.add_(1).masked_fill_(fired, 0)
        if bool(active.any()):
            smallest = features[active].min()
            self.threshold_batches.add_(1)
            self.threshold.add_((smallest - self.threshold) / self.threshold_batches)


def train_step(sae: MatryoshkaSAE, optimizer: torch.optim.Optimizer, batch: ActivationBatch) -> LossTerms:
    """One training step of the SAE on a padded batch (Section 4).

    Args:
        sae: the SAE, in training mode; `optimizer` holds all its parameters.
        optimizer: a torch optimizer over `sae.parameters()`.
        batch: the padded batch of activations.

    Returns:
        The LossTerms of the batch at the parameters before the update, detached.
    """
    x = batch.tokens()
    optimizer.zero_grad(set_to_none=True)
    terms = sae.loss(x)
    terms.total.backward()
    decoder = sae.W_dec
    with torch.no_grad():
        if decoder.grad is not None:
            unit = decoder / decoder.norm(dim=-1, keepdim=True)
            decoder.grad -= (decoder.grad * unit).sum(dim=-1, keepdim=True) * unit
    optimizer.step()
    with torch.no_grad():
        decoder /= decoder.norm(dim=-1, keepdim=True)
    sae.update_statistics(terms.features)
    return LossTerms(total=terms.total.detach(), reconstruction=terms.reconstruction.detach(),
                     prefix_errors=terms.prefix_errors.detach(), aux=terms.aux.detach(), features=terms.features)
