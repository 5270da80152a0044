"""Training loop: Adam over all SAE parameters, a linear warm-up of the sparsity coefficient."""
from __future__ import annotations

import torch

from jumprelu.config import TrainConfig
from jumprelu.data import ActivationStream
from jumprelu.sae import JumpReLUSAE, LossTerms, train_step


class Trainer:
    """Trains `sae` on batches of `stream` with the hyper-parameters of `cfg`."""

    def __init__(self, sae: JumpReLUSAE, stream: ActivationStream, cfg: TrainConfig) -> None:
        self.sae = sae
        self.stream = stream
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(sae.parameters(), lr=cfg.lr, betas=(cfg.adam_beta1, cfg.adam_beta2))
        self.steps_done = 0

    def sparsity_coefficient(self, step: int) -> float:
        """lambda at the 0-based step `step`: linear from 0 to `cfg.sparsity_coefficient` during the warm-up."""
        if self.cfg.sparsity_warmup_steps <= 0:
            return self.cfg.sparsity_coefficient
        return self.cfg.sparsity_coefficient * min(1.0, step / self.cfg.sparsity_warmup_steps)

    def step(self) -> LossTerms:
        """One training step on a fresh batch; returns the batch's loss terms before the update."""
        x = self.stream.next_batch(self.cfg.batch_size)
        terms = train_step(self.sae, self.optimizer, x, self.sparsity_coefficient(self.steps_done),
                           self.cfg.unit_norm_decoder)
        self.steps_done += 1
        return terms

    def run(self, steps: int) -> list[LossTerms]:
        """`steps` training steps; the loss terms of each."""
        return [self.step() for _ in range(steps)]
