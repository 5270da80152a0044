"""Run a few SPIN iterations on the toy sorting task.

    python run_spin.py --iterations 2 --steps 10 [--loss-type hinge]
"""
from __future__ import annotations

import argparse

import torch

from spin.model import LSTMLanguageModel
from spin.selfplay import SPINConfig, run_selfplay
from spin.sft_data import make_sft_data


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--iterations", type=int, default=SPINConfig.iterations)
    p.add_argument("--steps", type=int, default=SPINConfig.steps_per_iteration)
    p.add_argument("--lam", type=float, default=SPINConfig.lam)
    p.add_argument("--loss-type", default=SPINConfig.loss_type, choices=["logistic", "hinge"])
    args = p.parse_args(argv)
    cfg = SPINConfig(lam=args.lam, loss_type=args.loss_type, iterations=args.iterations, steps_per_iteration=args.steps)
    torch.manual_seed(cfg.seed)
    model = LSTMLanguageModel()
    data = make_sft_data(64, model.vocab_size, seed=cfg.seed)
    history = run_selfplay(model, data, cfg)
    for h in history:
        if h["step"] in (0, cfg.steps_per_iteration - 1):
            print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in h.items()))
    return history


if __name__ == "__main__":
    main()
