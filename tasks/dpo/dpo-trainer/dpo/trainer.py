"""The DPO training loop: policy vs frozen reference on batches of preference pairs."""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from .config import DPOConfig
from .data import IGNORE_INDEX, PAD_ID
from .logprobs import sequence_logps
from .losses import dpo_loss, preference_accuracy, reward_margin


def _pad_to(t: torch.Tensor, length: int, value: int) -> torch.Tensor:
    return F.pad(t, (0, length - t.shape[1]), value=value)


def concatenated_batch(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Stack chosen and rejected sequences into one batch of 2B rows (chosen first)."""
    length = max(batch["chosen_input_ids"].shape[1], batch["rejected_input_ids"].shape[1])
    out = {}
    for key, value in (("input_ids", PAD_ID), ("attention_mask", 0), ("labels", IGNORE_INDEX)):
        out[key] = torch.cat(
            [_pad_to(batch[f"chosen_{key}"], length, value), _pad_to(batch[f"rejected_{key}"], length, value)]
        )
    return out


def concatenated_forward(model: nn.Module, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """One forward pass for chosen and rejected responses; returns their summed log-probs."""
    cat = concatenated_batch(batch)
    logits = model(cat["input_ids"], cat["attention_mask"])
    logps = sequence_logps(logits.float(), cat["labels"])
    n = batch["chosen_input_ids"].shape[0]
    return logps[:n], logps[n:]


class DPOTrainer:
    def __init__(self, policy: nn.Module, reference: nn.Module, config: DPOConfig) -> None:
        self.policy = policy
        self.reference = reference
        self.config = config
        self.optimizer = torch.optim.AdamW(policy.parameters(), lr=config.lr, weight_decay=config.weight_decay)

    def compute_loss(self, batch: dict[str, torch.Tensor], train: bool = True) -> tuple[torch.Tensor, dict[str, float]]:
        cfg = self.config
        with torch.set_grad_enabled(train):
            policy_chosen, policy_rejected = concatenated_forward(self.policy, batch)
        with torch.no_grad():
            reference_chosen, reference_rejected = concatenated_forward(self.reference, batch)
        losses, chosen_rewards, rejected_rewards = dpo_loss(
            policy_chosen,
            policy_rejected,
            reference_chosen,
            reference_rejected,
            beta=cfg.beta,
            label_smoothing=cfg.label_smoothing,
            loss_type=cfg.loss_type,
        )
        loss = losses.mean()
        metrics = {
            "loss": loss.item(),
            "rewards/chosen": chosen_rewards.mean().item(),
            "rewards/rejected": rejected_rewards.mean().item(),
            "rewards/accuracy": preference_accuracy(chosen_rewards, rejected_rewards).item(),
            "rewards/margin": reward_margin(chosen_rewards, rejected_rewards).item(),
            "logps/chosen": policy_chosen.detach().mean().item(),
            "logps/rejected": policy_rejected.detach().mean().item(),
        }
        return loss, metrics

    def train_step(self, batch: dict[str, torch.Tensor]) -> dict[str, float]:
        self.policy.train()
        self.optimizer.zero_grad(set_to_none=True)
        loss, metrics = self.compute_loss(batch, train=True)
        loss.backward()
        metrics["grad_norm"] = float(nn.utils.clip_grad_norm_(self.policy.parameters(), self.config.max_grad_norm))
        self.optimizer.step()
        return metrics

    @torch.no_grad()
    def evaluate(self, batch: dict[str, torch.Tensor]) -> dict[str, float]:
        self.policy.eval()
        _, metrics = self.compute_loss(batch, train=False)
        return metrics
