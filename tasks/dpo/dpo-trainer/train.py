"""Train a tiny policy with DPO on synthetic preference pairs.

    python train.py --steps 20 --beta 0.1 [--loss-type ipo] [--label-smoothing 0.1]
"""
from __future__ import annotations

import argparse

import torch

from dpo.config import DPOConfig, ModelConfig
from dpo.data import batches, collate, random_preference_pairs
from dpo.model import TinyCausalLM, frozen_reference
from dpo.trainer import DPOTrainer


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=DPOConfig.steps)
    parser.add_argument("--beta", type=float, default=DPOConfig.beta)
    parser.add_argument("--label-smoothing", type=float, default=DPOConfig.label_smoothing)
    parser.add_argument("--loss-type", default=DPOConfig.loss_type, choices=["sigmoid", "ipo"])
    parser.add_argument("--lr", type=float, default=DPOConfig.lr)
    parser.add_argument("--seed", type=int, default=DPOConfig.seed)
    args = parser.parse_args(argv)

    cfg = DPOConfig(
        beta=args.beta, label_smoothing=args.label_smoothing, loss_type=args.loss_type,
        lr=args.lr, steps=args.steps, seed=args.seed,
    )
    torch.manual_seed(cfg.seed)
    model_cfg = ModelConfig()
    policy = TinyCausalLM(model_cfg)
    reference = frozen_reference(policy)
    trainer = DPOTrainer(policy, reference, cfg)

    train_pairs = random_preference_pairs(64, model_cfg.vocab_size, seed=cfg.seed)
    eval_batch = collate(random_preference_pairs(32, model_cfg.vocab_size, seed=cfg.seed + 1))
    stream = batches(train_pairs, cfg.batch_size, seed=cfg.seed)

    print("step 0 eval", {k: round(v, 4) for k, v in trainer.evaluate(eval_batch).items()})
    for step in range(1, cfg.steps + 1):
        metrics = trainer.train_step(next(stream))
        if step % cfg.log_every == 0 or step == cfg.steps:
            print(f"step {step} train", {k: round(v, 4) for k, v in metrics.items()})
    final = trainer.evaluate(eval_batch)
    print(f"step {cfg.steps} eval", {k: round(v, 4) for k, v in final.items()})
    return final


if __name__ == "__main__":
    main()
