"""Warmup training with Adam, saving a checkpoint (parameters and optimizer state) at the end of every epoch."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from less.config import WarmupConfig
from less.data import Example
from less.model import TinyLoRALM


@dataclass(frozen=True)
class AdamState:
    """Adam's state for the trainable parameters at a checkpoint, as torch.optim.Adam keeps it.

    exp_avg, exp_avg_sq: by parameter name, the first and second moment estimates m and v after `step` updates
        (tensors shaped like the parameters).
    step: the number of Adam updates taken so far; the update this state would take next is number step + 1,
        and its bias corrections are 1 - beta1**(step + 1) and 1 - beta2**(step + 1).
    betas, eps: Adam's hyper-parameters.
    """

    exp_avg: dict[str, torch.Tensor]
    exp_avg_sq: dict[str, torch.Tensor]
    step: int
    betas: tuple[float, float]
    eps: float


@dataclass(frozen=True)
class Checkpoint:
    """theta_i and Adam's state at the end of epoch i, and that epoch's average learning rate (eta-bar_i)."""

    params: dict[str, torch.Tensor]
    adam: AdamState
    lr: float
    epoch: int


def _lr_at(step: int, total: int, config: WarmupConfig) -> float:
    if config.lr_schedule == "constant":
        return config.lr
    return config.lr * (1.0 - step / total)


def warmup_train(model: TinyLoRALM, examples: list[Example], config: WarmupConfig) -> list[Checkpoint]:
    """Train the LoRA parameters on `examples` for config.epochs epochs; one Checkpoint per epoch."""
    g = torch.Generator().manual_seed(config.seed)
    opt = torch.optim.Adam(model.trainable_parameters(), lr=config.lr, betas=config.betas, eps=config.eps)
    steps_per_epoch = -(-len(examples) // config.batch_size)
    total, step, checkpoints = steps_per_epoch * config.epochs, 0, []
    for epoch in range(config.epochs):
        order = torch.randperm(len(examples), generator=g).tolist()
        lrs = []
        for start in range(0, len(examples), config.batch_size):
            lr = _lr_at(step, total, config)
            for group in opt.param_groups:
                group["lr"] = lr
            opt.zero_grad()
            model.batch_loss([examples[i] for i in order[start:start + config.batch_size]]).backward()
            opt.step()
            lrs.append(lr)
            step += 1
        names = model.trainable_names()
        state = [opt.state[p] for p in model.trainable_parameters()]
        adam = AdamState(exp_avg={n: s["exp_avg"].detach().clone() for n, s in zip(names, state)},
                         exp_avg_sq={n: s["exp_avg_sq"].detach().clone() for n, s in zip(names, state)},
                         step=int(state[0]["step"]), betas=config.betas, eps=config.eps)
        params = {n: p.detach().clone() for n, p in zip(names, model.trainable_parameters())}
        checkpoints.append(Checkpoint(params, adam, float(sum(lrs) / len(lrs)), epoch + 1))
    return checkpoints
