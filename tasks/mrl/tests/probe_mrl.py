"""Probe for mrl/1: the Matryoshka classifiers and loss, adaptive classification and funnel retrieval of
mrl/matryoshka.py. Runs in the sandbox; emits outputs only, never compares.

float64 throughout: logits, losses and gradients at rtol 1e-9, a short training run at rtol 1e-7 (NOTES.md);
indices exactly."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from lmrbench_probe import case
from mrl.config import MRLConfig
from mrl.data import make_data
from mrl.encoder import Encoder, classifier_params
from mrl.matryoshka import adaptive_classify, funnel_retrieval, matryoshka_logits, matryoshka_loss

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
TOL = dict(rtol=1e-9, atol=1e-12)


def t64(x) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


@case(**TOL)
def logits_hand():
    z = t64([[1.0, 2.0, 3.0, 4.0]])
    cfg = MRLConfig(dims=(1, 2, 4))
    ws = [t64([[1.0], [-1.0]]), t64([[1.0, 0.0], [0.0, 1.0]]), t64([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0]])]
    bs = [t64([0.0, 0.5]), t64([0.0, 0.0]), t64([1.0, -1.0])]
    tied = [t64([[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]])]
    return {"mrl": matryoshka_logits(z, ws, bs, cfg),
            "mrl_e": matryoshka_logits(z, tied, bs, MRLConfig(dims=(1, 2, 4), efficient=True))}


@case(params=range(len(CASES["heads"])), **TOL)
def heads(i):
    c = CASES["heads"][i]
    cfg = MRLConfig(dims=tuple(c["dims"]), efficient=c["efficient"],
                    importance=None if c["importance"] is None else tuple(c["importance"]))
    z = t64(c["z"]).requires_grad_(True)
    ws = [t64(w).requires_grad_(True) for w in c["weights"]]
    bs = [t64(b).requires_grad_(True) for b in c["biases"]]
    logits = matryoshka_logits(z, ws, bs, cfg)
    loss = matryoshka_loss(logits, torch.tensor(c["labels"]), cfg)
    loss.backward()
    return {"case": i, "logits": [lg.detach() for lg in logits], "loss": loss.detach(), "grad_z": z.grad,
            "grad_w": [w.grad for w in ws], "grad_b": [b.grad for b in bs]}


@case
def adaptive_hand():
    # three granularities, two classes; thresholds .8, .8, (last)
    logits = [t64([[3.0, 0.0], [0.0, 0.5], [0.1, 0.0]]), t64([[0.0, 1.0], [0.0, 2.0], [0.0, 0.2]]),
              t64([[5.0, 0.0], [5.0, 0.0], [0.0, 0.3]])]
    pred, used = adaptive_classify(logits, [0.8, 0.8, 0.99])
    return {"pred": pred, "used": used}


@case(params=range(len(CASES["adaptive"])))
def adaptive(i):
    c = CASES["adaptive"][i]
    pred, used = adaptive_classify([t64(lg) for lg in c["logits"]], c["thresholds"])
    return {"case": i, "pred": pred, "used": used}


@case
def funnel_hand():
    db = t64([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    q = t64([[1.0, 0.1, 0.0]])
    return {"one_stage": funnel_retrieval(q, db, [(3, 3)]), "two_stage": funnel_retrieval(q, db, [(1, 4), (3, 2)])}


@case(params=range(len(CASES["funnels"])))
def funnels(i):
    c = CASES["funnels"][i]
    return {"case": i, "ids": funnel_retrieval(t64(c["queries"]), t64(c["database"]),
                                               [tuple(s) for s in c["cascade"]])}


@case(rtol=1e-7, atol=1e-9)
def training_run():
    out = {}
    for efficient in (False, True):
        cfg = MRLConfig(efficient=efficient)
        x, y = make_data(60)
        enc = Encoder(x.shape[1], cfg.dims[-1])
        ws, bs = classifier_params(cfg, 5)
        opt = torch.optim.SGD(list(enc.parameters()) + ws + bs, lr=0.05)
        losses = []
        for _ in range(10):
            loss = matryoshka_loss(matryoshka_logits(enc(x), ws, bs, cfg), y, cfg)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss))
        out["mrl_e" if efficient else "mrl"] = losses
    return out
