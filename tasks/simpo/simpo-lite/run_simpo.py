"""Fine-tune the toy GRU LM with SimPO on synthetic pairs (CPU, a few seconds).

    python run_simpo.py --steps 30 --beta 2.0 --gamma 1.0
"""
from __future__ import annotations

import argparse

import torch

from simpo.modeling import GRULanguageModel
from simpo.pairs import make_pairs, minibatches
from simpo.trainer import SimPOConfig, SimPOTrainer


def main(argv=None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=SimPOConfig.steps)
    p.add_argument("--beta", type=float, default=SimPOConfig.beta)
    p.add_argument("--gamma", type=float, default=SimPOConfig.gamma)
    p.add_argument("--sft-weight", type=float, default=SimPOConfig.sft_weight)
    args = p.parse_args(argv)
    cfg = SimPOConfig(beta=args.beta, gamma=args.gamma, steps=args.steps, sft_weight=args.sft_weight)
    torch.manual_seed(cfg.seed)
    model = GRULanguageModel()
    data = make_pairs(64, model.vocab_size, seed=cfg.seed)
    trainer = SimPOTrainer(model, cfg)
    stream = minibatches(data, cfg.batch_size, seed=cfg.seed)
    metrics: dict[str, float] = {}
    for step in range(1, cfg.steps + 1):
        metrics = trainer.step(next(stream))
        if step % 10 == 0 or step == 1:
            print(f"step {step:3d} " + " ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
    return metrics


if __name__ == "__main__":
    main()
