"""The SPIN outer loop: freeze an opponent, generate, train the main player, repeat."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn as nn

from .generation import sample_responses
from .likelihood import response_logprob
from .loss import real_preferred_rate, spin_loss
from .model import snapshot
from .sft_data import SFTData, select


@dataclass
class SPINConfig:
    lam: float = 0.1
    loss_type: str = "logistic"
    iterations: int = 2
    steps_per_iteration: int = 10
    batch_size: int = 16
    lr: float = 3e-3
    max_new_tokens: int = 6
    seed: int = 0
    history: list = field(default_factory=list)


def spin_step(model, opponent, prompts, real, generated, cfg: SPINConfig):
    """Loss and metrics of one batch; gradients flow into `model` only."""
    policy_real = response_logprob(model, prompts, real)
    policy_generated = response_logprob(model, prompts, generated)
    with torch.no_grad():
        opponent_real = response_logprob(opponent, prompts, real)
        opponent_generated = response_logprob(opponent, prompts, generated)
    losses, real_rewards, generated_rewards = spin_loss(
        policy_real, policy_generated, opponent_real, opponent_generated, lam=cfg.lam, loss_type=cfg.loss_type
    )
    metrics = {
        "loss": losses.mean().item(),
        "reward/real": real_rewards.mean().item(),
        "reward/generated": generated_rewards.mean().item(),
        "real_preferred": real_preferred_rate(real_rewards, generated_rewards).item(),
    }
    return losses.mean(), metrics


def run_selfplay(model: nn.Module, data: SFTData, cfg: SPINConfig) -> list[dict]:
    g = torch.Generator().manual_seed(cfg.seed)
    history = []
    for it in range(cfg.iterations):
        opponent = snapshot(model)  # p_{theta_t}
        synthetic = sample_responses(opponent, data.prompts, cfg.max_new_tokens, generator=g)
        optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        for step in range(cfg.steps_per_iteration):
            idx = torch.randperm(data.prompts.shape[0], generator=g)[: cfg.batch_size]
            batch = select(data, idx)
            generated = type(synthetic)(synthetic.tokens[idx], synthetic.mask[idx])
            model.train()
            loss, metrics = spin_step(model, opponent, batch.prompts, batch.real, generated, cfg)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append({"iteration": it, "step": step, **metrics})
    return history
