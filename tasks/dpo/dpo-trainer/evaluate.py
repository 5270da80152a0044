"""Score a policy against the reference on held-out preference pairs.

Reports the DPO loss and how often the implicit reward beta * log(pi / pi_ref) ranks the
chosen response above the rejected one. With an untrained policy (policy == reference)
every implicit reward is 0, the accuracy is 0 and the loss is log 2.

    python evaluate.py [--train-steps 10]
"""
from __future__ import annotations

import argparse

import torch

from dpo.config import DPOConfig, ModelConfig
from dpo.data import batches, collate, random_preference_pairs
from dpo.losses import dpo_loss, preference_accuracy
from dpo.model import TinyCausalLM, frozen_reference
from dpo.trainer import DPOTrainer, concatenated_forward


@torch.no_grad()
def score(policy, reference, batch, cfg: DPOConfig) -> dict[str, float]:
    pc, pr = concatenated_forward(policy.eval(), batch)
    rc, rr = concatenated_forward(reference, batch)
    losses, chosen_rewards, rejected_rewards = dpo_loss(
        pc, pr, rc, rr, beta=cfg.beta, label_smoothing=cfg.label_smoothing, loss_type=cfg.loss_type
    )
    return {
        "loss": losses.mean().item(),
        "accuracy": preference_accuracy(chosen_rewards, rejected_rewards).item(),
        "chosen_reward": chosen_rewards.mean().item(),
        "rejected_reward": rejected_rewards.mean().item(),
    }


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--train-steps", type=int, default=10)
    args = parser.parse_args(argv)
    cfg = DPOConfig()
    torch.manual_seed(cfg.seed)
    model_cfg = ModelConfig()
    policy = TinyCausalLM(model_cfg)
    reference = frozen_reference(policy)
    held_out = collate(random_preference_pairs(32, model_cfg.vocab_size, seed=123))
    print("before training:", score(policy, reference, held_out, cfg))
    trainer = DPOTrainer(policy, reference, cfg)
    stream = batches(random_preference_pairs(64, model_cfg.vocab_size, seed=cfg.seed), cfg.batch_size)
    for _ in range(args.train_steps):
        trainer.train_step(next(stream))
    result = score(policy, reference, held_out, cfg)
    print(f"after {args.train_steps} steps:", result)
    return result


if __name__ == "__main__":
    main()
