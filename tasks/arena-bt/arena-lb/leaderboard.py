"""Build a leaderboard from a vote log (CSV) or from simulated battles.

    python leaderboard.py --simulate
    python leaderboard.py votes.csv --ties drop --rounds 200
"""
from __future__ import annotations

import argparse

import numpy as np

from arena.config import BootstrapConfig, RatingConfig
from arena.ratings import build_leaderboard
from arena.render import render
from arena.rng import make_rng
from arena.simulate import simulate
from arena.votes import load_votes


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser()
    ap.add_argument("votes", nargs="?")
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--ties", default="half", choices=["half", "drop"])
    ap.add_argument("--anchor", default=None)
    ap.add_argument("--reweight", action="store_true")
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.simulate or args.votes is None:
        log = simulate(np.array([0.8, 0.4, 0.0, -0.3, -0.9]), 400, make_rng(args.seed))
    else:
        log = load_votes(args.votes)
    cfg = RatingConfig(ties=args.ties, anchor_model=args.anchor, reweight=args.reweight)
    board = build_leaderboard(log, cfg, BootstrapConfig(rounds=args.rounds, seed=args.seed))
    text = render(board)
    print(text)
    return text


if __name__ == "__main__":
    main()
