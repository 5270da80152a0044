"""Probe for spec-decoding/1: verification, speculative steps and generations, and the analysis quantities of
specdec/speculative.py. Runs in the sandbox; emits outputs only, never compares.

Token ids, counts and the stream's usage are compared exactly; the analysis quantities at rtol 1e-12 (float64
arithmetic; NOTES.md)."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from lmrbench_probe import case
from specdec.config import SpecConfig
from specdec.model import make_pair
from specdec.sampling import UniformStream, probs_from_logits
from specdec.speculative import acceptance_rate, expected_tokens, speculative_generate, speculative_step, verify
from specdec.speculative import walltime_improvement

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
TOL = dict(rtol=1e-12, atol=1e-14)


def t64(x) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


# ---------------------------------------------------------------- the analysis (cheap)


@case(**TOL)
def analysis_hand():
    p = t64([[0.25, 0.5, 0.25], [0.6, 0.2, 0.2]])
    q = t64([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
    return {"beta": acceptance_rate(p, q), "beta_same": acceptance_rate(p, p.clone()),
            "beta_f32": acceptance_rate(p.float(), q.float()),
            "tokens_08_4": expected_tokens(0.8, 4), "tokens_0": expected_tokens(0.0, 3),
            "tokens_1": expected_tokens(1.0, 3), "tokens_05_1": expected_tokens(0.5, 1),
            "speedup": walltime_improvement(0.8, 4, 0.1), "speedup_c0": walltime_improvement(0.6, 2, 0.0)}


@case(**TOL)
def acceptance_rate_batched():
    g = torch.Generator().manual_seed(3)
    p = torch.softmax(torch.randn(2, 3, 7, generator=g, dtype=torch.float64), dim=-1)
    q = torch.softmax(torch.randn(2, 3, 7, generator=g, dtype=torch.float64), dim=-1)
    return {"beta": acceptance_rate(p, q)}


# ---------------------------------------------------------------- verification


@case
def verify_hand():
    p = t64([[0.25, 0.5, 0.25], [0.6, 0.2, 0.2], [0.1, 0.1, 0.8]])
    q = t64([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
    return {"second_rejected": verify(p, q, [0, 2], [0.4, 0.5], 0.3),
            "first_rejected_u05": verify(p, q, [0, 2], [0.6, 0.0], 0.5),
            "first_rejected_u09": verify(p, q, [0, 2], [0.6, 0.0], 0.9),
            "all_accepted": verify(p, q, [0, 2], [0.1, 0.2], 0.85),
            "ratio_above_one": verify(p, q, [1, 0], [0.99, 0.99], 0.05)}


@case(params=range(len(CASES["verify"])))
def verify_random(i):
    c = CASES["verify"][i]
    n, token = verify(t64(c["p"]), t64(c["q"]), c["drafted"], c["r"], c["u"])
    return {"case": i, "n": n, "token": token}


@case
def verify_one_hot():
    # temperature 0: both models are one-hot
    p = torch.nn.functional.one_hot(torch.tensor([2, 0, 1]), 4).double()
    q = torch.nn.functional.one_hot(torch.tensor([2, 3]), 4).double()
    return {"agree_then_differ": verify(p, q, [2, 3], [0.5, 0.5], 0.5),
            "agree_all": verify(p, q[:1].clone(), [2], [0.999], 0.7)}


@case(rtol=1e-12, atol=1e-12)
def verify_preserves_target():
    # gamma = 1: every drafted token x (weight q(x)), acceptance numbers and emission numbers on 40-point grids;
    # the first token a step emits is x when it is accepted, else the corrected token
    p = t64([[0.1, 0.4, 0.3, 0.2], [0.25, 0.25, 0.25, 0.25]])
    q = t64([[0.4, 0.1, 0.25, 0.25]])
    grid = [(k + 0.5) / 40 for k in range(40)]
    freq = torch.zeros(4, dtype=torch.float64)
    for x in range(4):
        for r in grid:
            for u in grid:
                n, token = verify(p, q, [x], [r], u)
                freq[x if n == 1 else token] += float(q[0, x]) / (len(grid) * len(grid))
    return {"freq": freq, "target": p[0]}


# ---------------------------------------------------------------- steps and generations with the tiny models


@case(params=range(len(CASES["steps"])))
def step_tiny(i):
    c = CASES["steps"][i]
    target, draft = make_pair()
    stream = UniformStream(c["seed"])
    step = speculative_step(target, draft, c["prefix"], SpecConfig(gamma=c["gamma"], temperature=c["temperature"]),
                            stream)
    return {"case": i, "drafted": step.drafted, "num_accepted": step.num_accepted, "tokens": step.tokens,
            "numbers_used": stream.used, "target_calls": target.calls, "draft_calls": draft.calls}


@case(params=range(len(CASES["generations"])))
def generate_tiny(i):
    c = CASES["generations"][i]
    target, draft = make_pair()
    cfg = SpecConfig(gamma=c["gamma"], temperature=c["temperature"], max_new_tokens=c["max_new_tokens"])
    stream = UniformStream(c["seed"])
    for _ in range(2):  # passes made before the generation are not the generation's
        target.logits([0])
        draft.logits([0, 1])
    res = speculative_generate(target, draft, c["prompt"], cfg, stream)
    greedy: list[int] = []
    if c["temperature"] == 0:
        for _ in range(c["max_new_tokens"]):
            greedy.append(int(torch.argmax(probs_from_logits(target.logits(c["prompt"] + greedy)[-1], 0.0))))
    return {"case": i, "tokens": res.tokens, "accepted": [s.num_accepted for s in res.steps],
            "step_tokens": [s.tokens for s in res.steps], "target_calls": res.target_calls,
            "draft_calls": res.draft_calls, "numbers_used": stream.used, "greedy": greedy}
