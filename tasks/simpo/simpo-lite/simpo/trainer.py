"""One SimPO optimisation step: no reference model, only the policy."""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn

from .objective import reward_accuracy, simpo_loss
from .pairs import PairBatch
from .scoring import response_token_logps


@dataclass
class SimPOConfig:
    beta: float = 2.0        # reward scale
    gamma: float = 1.0       # target reward margin
    lr: float = 3e-3
    steps: int = 30
    batch_size: int = 8
    sft_weight: float = 0.0  # optional NLL on the chosen responses (0 = pure SimPO)
    seed: int = 0


def pair_rewards(model: nn.Module, batch: PairBatch, cfg: SimPOConfig):
    chosen_logps = response_token_logps(model, batch.prompts, batch.chosen)
    rejected_logps = response_token_logps(model, batch.prompts, batch.rejected)
    losses, chosen_rewards, rejected_rewards = simpo_loss(
        chosen_logps, batch.chosen_mask, rejected_logps, batch.rejected_mask, beta=cfg.beta, gamma=cfg.gamma
    )
    # token-level NLL of the chosen responses over the whole batch, for the optional SFT regulariser
    nll = -chosen_logps[batch.chosen_mask].mean()
    return losses, chosen_rewards, rejected_rewards, nll


class SimPOTrainer:
    def __init__(self, model: nn.Module, cfg: SimPOConfig) -> None:
        self.model = model
        self.cfg = cfg
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    def step(self, batch: PairBatch) -> dict[str, float]:
        self.model.train()
        losses, chosen_rewards, rejected_rewards, nll = pair_rewards(self.model, batch, self.cfg)
        loss = losses.mean() + self.cfg.sft_weight * nll
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return {
            "loss": loss.item(),
            "reward_chosen": chosen_rewards.mean().item(),
            "reward_rejected": rejected_rewards.mean().item(),
            "accuracy": reward_accuracy(chosen_rewards, rejected_rewards).item(),
            "margin_met": reward_accuracy(chosen_rewards, rejected_rewards, self.cfg.gamma).item(),
        }
