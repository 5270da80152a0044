"""Probe for contrastive-dec/1: the plausibility constraint, the contrastive scores and the search of
contrast/decoding.py. Runs in the sandbox; emits outputs only, never compares.

float64 throughout (the models included): scores at rtol 1e-9; masks and tokens exactly (NOTES.md)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import torch

from contrast.config import CDConfig
from contrast.decoding import contrastive_scores, contrastive_search, plausible_tokens
from contrast.model import make_pair
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
TOL = dict(rtol=1e-9, atol=1e-12)


def t64(x) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


@case
def plausible_hand():
    lp = torch.log(t64([0.5, 0.3, 0.15, 0.05]))
    return {"a02": plausible_tokens(lp, 0.2), "a07": plausible_tokens(lp, 0.7), "a1": plausible_tokens(lp, 1.0),
            "batched": plausible_tokens(torch.stack([lp, lp.flip(0)]), 0.5)}


@case(**TOL, outputs={"s_f32": dict(rtol=1e-6, atol=1e-7)})
def scores_hand():
    expert = torch.log(t64([0.6, 0.3, 0.08, 0.02]))
    amateur = torch.log(t64([0.5, 0.1, 0.2, 0.2]))
    return {"s": contrastive_scores(expert, amateur, CDConfig(alpha=0.1)),
            "s_t": contrastive_scores(expert, amateur, CDConfig(alpha=0.1, amateur_temperature=0.5)),
            "s_f32": contrastive_scores(expert.float(), amateur.float(), CDConfig(alpha=0.1))}


@case(params=range(len(CASES["logits"])), **TOL)
def scores_random(i):
    c = CASES["logits"][i]
    cfg = CDConfig(alpha=c["alpha"], amateur_temperature=c["amateur_temperature"])
    s = contrastive_scores(t64(c["expert"]), t64(c["amateur"]), cfg)
    return {"case": i, "finite": torch.isfinite(s), "s": torch.where(torch.isfinite(s), s, torch.zeros_like(s)),
            "row0": contrastive_scores(t64(c["expert"][0]), t64(c["amateur"][0]), cfg)}


@case(params=range(len(CASES["searches"])), **TOL)
def search_tiny(i):
    c = CASES["searches"][i]
    expert, amateur = make_pair()
    cfg = CDConfig(alpha=c["alpha"], amateur_temperature=c["amateur_temperature"], beam_size=c["beam_size"],
                   max_new_tokens=c["max_new_tokens"])
    res = contrastive_search(expert, amateur, c["prompt"], cfg)
    return {"case": i, "best_tokens": res.best.tokens, "best_score": res.best.score,
            "beam_tokens": [[h.tokens for h in step] for step in res.beams],
            "beam_scores": [[h.score for h in step] for step in res.beams],
            "finite": all(math.isfinite(h.score) for step in res.beams for h in step)}
