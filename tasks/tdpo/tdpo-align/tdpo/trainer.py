"""TDPO training: policy and frozen reference, token-level statistics, TDPO1/TDPO2 loss."""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn

from .objective import kl_gap, tdpo_loss
from .token_stats import mean_token_kl, token_level_stats


@dataclass
class TDPOConfig:
    beta: float = 0.1
    alpha: float = 0.5
    use_tdpo2: bool = True
    lr: float = 2e-3
    steps: int = 15
    seed: int = 0


def side_stats(policy: nn.Module, reference: nn.Module, input_ids: torch.Tensor, labels: torch.Tensor):
    policy_logits = policy(input_ids)
    with torch.no_grad():
        reference_logits = reference(input_ids)
    return token_level_stats(policy_logits, reference_logits, labels)


class TDPOTrainer:
    def __init__(self, policy: nn.Module, reference: nn.Module, cfg: TDPOConfig) -> None:
        self.policy, self.reference, self.cfg = policy, reference, cfg
        self.opt = torch.optim.AdamW(policy.parameters(), lr=cfg.lr, weight_decay=0.0)

    def loss(self, batch: dict[str, torch.Tensor]):
        cm, ckl = side_stats(self.policy, self.reference, batch["chosen_input_ids"], batch["chosen_labels"])
        rm, rkl = side_stats(self.policy, self.reference, batch["rejected_input_ids"], batch["rejected_labels"])
        losses, chosen_rewards, rejected_rewards = tdpo_loss(
            cm, rm, ckl, rkl, beta=self.cfg.beta, alpha=self.cfg.alpha, use_tdpo2=self.cfg.use_tdpo2
        )
        metrics = {
            "loss": losses.mean().item(),
            "reward_acc": (chosen_rewards > rejected_rewards).float().mean().item(),
            "reward_margin": (chosen_rewards - rejected_rewards).mean().item(),
            "kl_chosen_per_token": mean_token_kl(ckl.detach(), batch["chosen_labels"]).item(),
            "kl_rejected_per_token": mean_token_kl(rkl.detach(), batch["rejected_labels"]).item(),
            "kl_gap": kl_gap(ckl.detach(), rkl.detach()).item(),
        }
        return losses.mean(), metrics

    def step(self, batch: dict[str, torch.Tensor]) -> dict[str, float]:
        self.policy.train()
        loss, metrics = self.loss(batch)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return metrics
