"""Evaluate the SimPO reward on held-out pairs: ranking accuracy and correlation with length.

Because the reward is an average over tokens, it should not grow with the response length.

    python inspect_length_bias.py --train-steps 20
"""
from __future__ import annotations

import argparse

import torch

from simpo.modeling import GRULanguageModel
from simpo.objective import length_correlation, reward_accuracy
from simpo.pairs import make_pairs, minibatches
from simpo.trainer import SimPOConfig, SimPOTrainer, pair_rewards


@torch.no_grad()
def report(model, data, cfg) -> dict[str, float]:
    losses, rc, rr, _ = pair_rewards(model.eval(), data, cfg)
    lw, ll = data.lengths()
    return {
        "loss": losses.mean().item(),
        "accuracy": reward_accuracy(rc, rr).item(),
        "corr(reward, length)": length_correlation(torch.cat([rc, rr]), torch.cat([lw, ll])),
    }


def main(argv=None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--train-steps", type=int, default=20)
    args = p.parse_args(argv)
    cfg = SimPOConfig()
    torch.manual_seed(cfg.seed)
    model = GRULanguageModel()
    held_out = make_pairs(48, model.vocab_size, seed=99)
    print("before:", report(model, held_out, cfg))
    trainer = SimPOTrainer(model, cfg)
    stream = minibatches(make_pairs(64, model.vocab_size, seed=cfg.seed), cfg.batch_size)
    for _ in range(args.train_steps):
        trainer.step(next(stream))
    result = report(model, held_out, cfg)
    print(f"after {args.train_steps} steps:", result)
    return result


if __name__ == "__main__":
    main()
