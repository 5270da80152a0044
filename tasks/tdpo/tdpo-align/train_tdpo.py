"""Train the toy policy with TDPO1 or TDPO2.

    python train_tdpo.py --variant tdpo2 --steps 15 --beta 0.1 --alpha 0.5
"""
from __future__ import annotations

import argparse

import torch

from tdpo.batch import preference_batch
from tdpo.policy import ToyDecoder, make_reference
from tdpo.trainer import TDPOConfig, TDPOTrainer


def main(argv=None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--variant", choices=["tdpo1", "tdpo2"], default="tdpo2")
    p.add_argument("--steps", type=int, default=TDPOConfig.steps)
    p.add_argument("--beta", type=float, default=TDPOConfig.beta)
    p.add_argument("--alpha", type=float, default=TDPOConfig.alpha)
    args = p.parse_args(argv)
    cfg = TDPOConfig(beta=args.beta, alpha=args.alpha, use_tdpo2=args.variant == "tdpo2", steps=args.steps)
    torch.manual_seed(cfg.seed)
    policy = ToyDecoder()
    reference = make_reference(policy)
    trainer = TDPOTrainer(policy, reference, cfg)
    metrics: dict[str, float] = {}
    for step in range(cfg.steps):
        batch = preference_batch(16, policy.vocab_size, seed=cfg.seed * 1000 + step % 4)
        metrics = trainer.step(batch)
        if step % 5 == 0 or step == cfg.steps - 1:
            print(f"[{args.variant}] step {step:2d} " + " ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
    return metrics


if __name__ == "__main__":
    main()
