"""Training loop: Adam over all SAE parameters on a stream of padded batches."""
from __future__ import annotations

import torch

from matryoshka.config import TrainConfig
from matryoshka.data import ActivationStream
from matryoshka.sae import LossTerms, MatryoshkaSAE, train_step


class Trainer:
    """Trains `sae` on batches of `stream` with the hyper-parameters of `cfg`."""

    def __init__(self, sae: MatryoshkaSAE, stream: ActivationStream, cfg: TrainConfig) -> None:
        self.sae = sae
        self.stream = stream
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(sae.parameters(), lr=cfg.lr, betas=(cfg.adam_beta1, cfg.adam_beta2))
        self.steps_done = 0

    def step(self) -> LossTerms:
        """One training step on a fresh batch; returns the batch's loss terms before the update."""
        self.sae.train()
        batch = self.stream.next_batch(self.cfg.batch_size, self.cfg.max_len)
        terms = train_step(self.sae, self.optimizer, batch)
        self.steps_done += 1
        return terms

    def run(self, steps: int) -> list[LossTerms]:
        """`steps` training steps; the loss terms of each."""
        return [self.step() for _ in range(steps)]
