"""Probe for arena-bt/1: ratings, bootstrap intervals, ranks and win rates of arena/ratings.py. Runs in the
sandbox; emits outputs only, never compares.

Every output is compared with the reference's (tests/expected/, outside the sandbox) at the tolerances measured
in NOTES.md (strengths within 3e-4, ratings within 0.05 points: any optimiser converged that far passes); the
trusted checks in check_ratings.py recompute them from the equations of the method description. The helper
`bt_design` is not probed (it may be restructured)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from arena.config import BootstrapConfig, RatingConfig
from arena.ratings import bootstrap_ratings, build_leaderboard, fit_bradley_terry, rank_with_ci, to_elo
from arena.ratings import win_rate_matrix
from arena.votes import VoteLog, from_records
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
XI = dict(rtol=0, atol=3e-4)
RATING = {"rating*": {"rtol": 0, "atol": 5e-2}, "boot*": {"rtol": 0, "atol": 5e-2}, "ci_*": {"rtol": 0, "atol": 5e-2},
          "rows.*.rating": {"rtol": 0, "atol": 5e-2}, "rows.*.ci_*": {"rtol": 0, "atol": 5e-2},
          "win_rate": {"rtol": 0, "atol": 1e-4}}


def make_log(spec: dict) -> VoteLog:
    return VoteLog(tuple(f"m{i}" for i in range(spec["m"])), np.array(spec["a"], dtype=np.int64),
                   np.array(spec["b"], dtype=np.int64), np.array(spec["y"], dtype=np.float64),
                   np.array(spec["p"], dtype=np.float64))


def inputs(spec: dict, cfg: dict) -> dict:
    return {"m": spec["m"], "a": np.array(spec["a"]), "b": np.array(spec["b"]), "y": np.array(spec["y"]),
            "p": np.array(spec["p"]), "cfg": cfg}


# ---------------------------------------------------------------- hand cases (cheap first)


@case(**XI, outputs=RATING)
def fit_two_models():
    log = from_records([{"model_a": "x", "model_b": "y", "winner": "model_a"}] * 3
                       + [{"model_a": "y", "model_b": "x", "winner": "model_a"}])
    cfg = RatingConfig(l2=1e-4)
    xi = fit_bradley_terry(log, cfg)
    return {"xi": xi, "rating": to_elo(xi, log.models, cfg)}


@case(**XI, outputs=RATING)
def fit_ties_hand():
    recs = [{"model_a": "x", "model_b": "y", "winner": "model_a"}, {"model_a": "x", "model_b": "y", "winner": "tie"},
            {"model_a": "y", "model_b": "x", "winner": "tie (bothbad)"}]
    out = {}
    for ties in ("half", "drop"):
        cfg = RatingConfig(ties=ties, l2=0.5)
        out[ties] = fit_bradley_terry(from_records(recs), cfg)
    return out


@case(**XI)
def fit_reweight_hand():
    recs = [{"model_a": "x", "model_b": "y", "winner": "model_a", "prob": 0.25},
            {"model_a": "x", "model_b": "y", "winner": "model_b", "prob": 0.5}]
    return {"plain": fit_bradley_terry(from_records(recs), RatingConfig(l2=0.1)),
            "weighted": fit_bradley_terry(from_records(recs), RatingConfig(l2=0.1, reweight=True))}


@case(**XI)
def to_elo_hand():
    xi = np.array([float(np.log(3.0)), 0.0, -float(np.log(3.0)) - 1.0])
    return {"default": to_elo(xi, ("a", "b", "c"), RatingConfig()),
            "anchored": to_elo(xi, ("a", "b", "c"), RatingConfig(anchor_model="c", anchor_rating=1114.0)),
            "natural": to_elo(xi + 2.0, ("a", "b", "c"), RatingConfig(scale=1.0, base=float(np.e), init_rating=0.0))}


@case
def to_elo_unknown_anchor_raises():
    return {"r": to_elo(np.zeros(2), ("a", "b"), RatingConfig(anchor_model="z"))}


@case
def unknown_ties_raises():
    log = from_records([{"model_a": "x", "model_b": "y", "winner": "tie"}])
    return {"xi": fit_bradley_terry(log, RatingConfig(ties="skip"))}


@case(params=[0.0, -1e-3])
def nonpositive_l2_raises(l2):
    recs = [{"model_a": a, "model_b": b, "winner": w} for a, b in (("x", "y"), ("y", "z"), ("z", "x"), ("x", "z"))
            for w in ("model_a", "model_b", "tie")]
    return {"xi": fit_bradley_terry(from_records(recs), RatingConfig(l2=l2))}


@case(compare="exact")
def rank_hand():
    low = np.array([10.0, 5.0, -3.0, -20.0, 9.0])
    high = np.array([20.0, 8.0, 4.0, -10.0, 12.0])
    return {"rank": rank_with_ci(low, high)}


@case(params=range(len(CASES["intervals"])), compare="exact")
def rank_matches_reference(i):
    c = CASES["intervals"][i]
    return {"low": np.array(c["low"]), "high": np.array(c["high"]),
            "rank": rank_with_ci(np.array(c["low"]), np.array(c["high"]))}


@case(rtol=1e-12, atol=1e-14)
def win_rate_hand():
    r = np.array([1200.0, 1000.0, 800.0, 1000.0])
    return {"default": win_rate_matrix(r, RatingConfig()),
            "natural": win_rate_matrix(np.array([0.0, float(np.log(3.0))]), RatingConfig(scale=1.0, base=float(np.e)))}


@case(params=range(len(CASES["elo"])), rtol=1e-12, atol=1e-9)
def to_elo_matches_reference(i):
    xi = np.array(CASES["elo"][i]["xi"])
    m = xi.shape[-1]
    models = tuple(f"m{j}" for j in range(m))
    return {"xi": xi, "centred": to_elo(xi, models, RatingConfig()),
            "anchored": to_elo(xi, models, RatingConfig(anchor_model=f"m{m - 1}", anchor_rating=1250.0,
                                                        scale=200.0, base=2.0))}


# ---------------------------------------------------------------- fits on vote logs


@case(params=range(len(CASES["fits"])), **XI, outputs=RATING)
def fit_matches_reference(i):
    spec, cfg = CASES["fits"][i]["log"], CASES["fits"][i]["cfg"]
    c = RatingConfig(**cfg)
    log = make_log(spec)
    xi = fit_bradley_terry(log, c)
    return {"inputs": inputs(spec, cfg), "xi": xi, "rating": to_elo(xi, log.models, c),
            "win_rate": win_rate_matrix(to_elo(xi, log.models, c), c)}


@case(params=range(len(CASES["boots"])), **XI, outputs=RATING)
def bootstrap_matches_reference(i):
    spec, cfg, boot = CASES["boots"][i]["log"], CASES["boots"][i]["cfg"], CASES["boots"][i]["boot"]
    return {"inputs": inputs(spec, cfg), "boot_cfg": boot,
            "boot": bootstrap_ratings(make_log(spec), RatingConfig(**cfg), BootstrapConfig(**boot))}


@case(params=range(len(CASES["boards"])), **XI, outputs=RATING)
def leaderboard_matches_reference(i):
    spec, cfg, boot = CASES["boards"][i]["log"], CASES["boards"][i]["cfg"], CASES["boards"][i]["boot"]
    board = build_leaderboard(make_log(spec), RatingConfig(**cfg), BootstrapConfig(**boot))
    rows = [{"model": r.model, "rating": r.rating, "ci_low": r.ci_low, "ci_high": r.ci_high, "rank": r.rank,
             "n_votes": r.n_votes} for r in board.rows]
    return {"inputs": inputs(spec, cfg), "boot_cfg": boot, "rows": rows, "win_rate": board.win_rate}
