"""Run LESS on the toy setup: warmup-train on a random subset of the pool, then select the examples most
influential on the target subtasks, and report which task families were selected.

    python run_less.py --targets reverse sort --fraction 0.1
"""
from __future__ import annotations

import argparse
from collections import Counter

import torch

from less.checkpoints import warmup_train
from less.config import ModelConfig, SelectConfig, WarmupConfig
from less.data import make_pool, make_validation
from less.model import TinyLoRALM
from less.projection import random_projection
from less.select import less_select


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pool", type=int, default=200)
    parser.add_argument("--targets", nargs="+", default=["reverse"])
    parser.add_argument("--fraction", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    model_config, warmup, select = ModelConfig(), WarmupConfig(warmup_fraction=0.25), SelectConfig(
        fraction=args.fraction)
    pool = make_pool(args.pool, seed=args.seed)
    validation = make_validation(tuple(args.targets), per_task=4, seed=args.seed + 1)
    model = TinyLoRALM(model_config)
    g = torch.Generator().manual_seed(warmup.seed)
    warm = torch.randperm(len(pool), generator=g)[: max(1, int(warmup.warmup_fraction * len(pool)))].tolist()
    checkpoints = warmup_train(model, [pool[i] for i in warm], warmup)
    projection = random_projection(model.num_trainable(), select.proj_dim, select.proj_seed)
    selection = less_select(model, checkpoints, pool, validation, projection, select.fraction)
    print("pool:", dict(Counter(z.family for z in pool)))
    print("selected:", dict(Counter(pool[int(i)].family for i in selection.indices)))


if __name__ == "__main__":
    main()
