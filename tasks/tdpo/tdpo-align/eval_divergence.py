"""Held-out evaluation: preference accuracy of the implicit reward and the sequential KL to the reference.

TDPO's claim is that it improves the preference margin while keeping the per-token KL divergence from
the reference small; this script reports both, for a policy trained a few steps.

    python eval_divergence.py --variant tdpo2 --train-steps 10
"""
from __future__ import annotations

import argparse

import torch

from tdpo.batch import preference_batch
from tdpo.objective import tdpo_loss
from tdpo.policy import ToyDecoder, make_reference
from tdpo.token_stats import mean_token_kl, token_level_stats
from tdpo.trainer import TDPOConfig, TDPOTrainer


@torch.no_grad()
def evaluate(policy, reference, batch, cfg: TDPOConfig) -> dict[str, float]:
    policy.eval()
    out = {}
    stats = {}
    for side in ("chosen", "rejected"):
        ids, labels = batch[f"{side}_input_ids"], batch[f"{side}_labels"]
        stats[side] = token_level_stats(policy(ids), reference(ids), labels)
        out[f"kl_per_token/{side}"] = mean_token_kl(stats[side][1], labels).item()
    losses, rc, rr = tdpo_loss(stats["chosen"][0], stats["rejected"][0], stats["chosen"][1], stats["rejected"][1],
                               beta=cfg.beta, alpha=cfg.alpha, use_tdpo2=cfg.use_tdpo2)
    out["loss"] = losses.mean().item()
    out["accuracy"] = (rc > rr).float().mean().item()
    return out


def main(argv=None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--variant", choices=["tdpo1", "tdpo2"], default="tdpo2")
    p.add_argument("--train-steps", type=int, default=10)
    args = p.parse_args(argv)
    cfg = TDPOConfig(use_tdpo2=args.variant == "tdpo2")
    torch.manual_seed(cfg.seed)
    policy = ToyDecoder()
    reference = make_reference(policy)
    held_out = preference_batch(32, policy.vocab_size, seed=4242)
    print("before:", evaluate(policy, reference, held_out, cfg))
    trainer = TDPOTrainer(policy, reference, cfg)
    for step in range(args.train_steps):
        trainer.step(preference_batch(16, policy.vocab_size, seed=step % 4))
    result = evaluate(policy, reference, held_out, cfg)
    print(f"after {args.train_steps} steps:", result)
    return result


if __name__ == "__main__":
    main()
