"""Regenerate tests/fixtures for arena-bt/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR``. Writes OUT_DIR/cases.json: vote logs (model indices, outcomes,
sampling probabilities) with rating options, and interval sets for the ranks. Deterministic.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def log(rng, m, n, *, tie_rate=0.2, skewed=False, dominant=False, isolated=False):
    strengths = rng.normal(0.0, 0.8, m)
    iu = np.triu_indices(m, 1)
    w = rng.uniform(0.2, 3.0, iu[0].size) if skewed else np.ones(iu[0].size)
    if isolated:  # the last model only ever ties
        w[(iu[1] == m - 1)] = 0.0
    p = w / w.sum()
    k = rng.choice(p.size, size=n, p=p)
    a, b = iu[0][k], iu[1][k]
    swap = rng.random(n) < 0.5
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    y = (rng.random(n) < 1 / (1 + np.exp(strengths[b] - strengths[a]))).astype(float)
    y[rng.random(n) < tie_rate] = 0.5
    if dominant:  # model 0 wins every battle it is in
        y[a == 0] = 1.0
        y[b == 0] = 0.0
    if isolated:
        extra = rng.integers(0, m - 1, 3)
        a = np.concatenate([a, extra])
        b = np.concatenate([b, np.full(3, m - 1)])
        y = np.concatenate([y, np.full(3, 0.5)])
        p = np.concatenate([p[k], np.full(3, 0.01)])
    else:
        p = p[k]
    return {"m": m, "a": a.tolist(), "b": b.tolist(), "y": y.tolist(), "p": [round(float(x), 6) for x in p]}


def main(out: Path) -> None:
    rng = np.random.default_rng(2024)
    fits = []
    specs = [
        (dict(m=3, n=30), dict(ties="half")),
        (dict(m=3, n=30), dict(ties="drop")),
        (dict(m=4, n=60, skewed=True), dict(ties="half", reweight=True)),
        (dict(m=4, n=60, skewed=True), dict(ties="drop", reweight=True, l2=0.5)),
        (dict(m=5, n=120, tie_rate=0.35), dict(ties="half", l2=3.0)),
        (dict(m=5, n=120, tie_rate=0.35), dict(ties="drop", l2=1e-3)),
        (dict(m=4, n=40, dominant=True), dict(ties="half", l2=0.05)),
        (dict(m=5, n=50, isolated=True), dict(ties="drop", l2=0.2)),
        (dict(m=5, n=50, isolated=True), dict(ties="half", reweight=True, l2=0.2)),
        (dict(m=6, n=200, skewed=True), dict(ties="half", reweight=True, l2=1e-2)),
        (dict(m=2, n=15), dict(ties="half", l2=1e-4)),
    ]
    for (lk, cfg) in specs:
        fits.append({"log": log(rng, lk.pop("m"), lk.pop("n"), **lk), "cfg": cfg})
    elo = []
    for m, batch in ((3, ()), (5, ()), (4, (2,)), (3, (2, 3))):
        elo.append({"xi": rng.normal(0.5, 1.0, batch + (m,)).round(6).tolist()})
    boots = [
        {"log": log(rng, 3, 25), "cfg": {"ties": "half"}, "boot": {"rounds": 6, "seed": 3, "confidence": 0.9}},
        {"log": log(rng, 4, 40, skewed=True), "cfg": {"ties": "drop", "reweight": True, "l2": 0.1},
         "boot": {"rounds": 8, "seed": 11, "confidence": 0.8}},
        {"log": log(rng, 5, 80), "cfg": {"ties": "half", "anchor_model": "m3", "anchor_rating": 1114.0,
                                         "scale": 200.0, "base": 2.0}, "boot": {"rounds": 7, "seed": 5}},
    ]
    boards = [
        {"log": log(rng, 4, 60), "cfg": {"ties": "half"}, "boot": {"rounds": 10, "seed": 0}},
        {"log": log(rng, 6, 150, skewed=True), "cfg": {"ties": "drop", "reweight": True, "l2": 0.01},
         "boot": {"rounds": 12, "seed": 7, "confidence": 0.9}},
        {"log": log(rng, 5, 20, tie_rate=0.5), "cfg": {"ties": "half", "anchor_model": "m0", "l2": 0.3},
         "boot": {"rounds": 9, "seed": 1}},
    ]
    intervals = []
    for m in (4, 7, 10):
        c = rng.normal(0, 30, m).round(3)
        h = rng.uniform(2, 25, m).round(3)
        intervals.append({"low": (c - h).tolist(), "high": (c + h).tolist()})
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps({"fits": fits, "elo": elo, "boots": boots, "boards": boards,
                                                 "intervals": intervals}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
