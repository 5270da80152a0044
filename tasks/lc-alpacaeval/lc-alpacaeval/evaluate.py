"""Evaluate simulated models against a baseline: raw and length-controlled win rates.

    python evaluate.py                       # the simulated leaderboard
    python evaluate.py --annotations FILE    # a JSON list of annotation records (schema: lcae/annotations.py)
"""
from __future__ import annotations

import argparse

import pandas as pd

from lcae.annotations import load_annotations
from lcae.config import LeaderboardConfig
from lcae.leaderboard import leaderboard
from lcae.simulate import JudgeConfig, SimulatedModel, simulate

MODELS = [
    SimulatedModel("concise-strong", quality=0.8, mean_words=20),
    SimulatedModel("verbose-weak", quality=-0.6, mean_words=70),
    SimulatedModel("verbose-weak-prompted-concise", quality=-0.6, mean_words=25),
    SimulatedModel("average", quality=0.0, mean_words=32, sensitivity=0.7),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--annotations", default=None, help="annotations JSON file (default: simulate)")
    parser.add_argument("--instructions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = LeaderboardConfig()
    if args.annotations:
        table = load_annotations(args.annotations)
    else:
        table = simulate(MODELS, args.instructions, JudgeConfig(seed=args.seed), baseline=config.baseline)
    with pd.option_context("display.width", 120, "display.precision", 3):
        print(leaderboard(table, config))


if __name__ == "__main__":
    main()
