"""Regenerate tests/fixtures for deepconf/1 (inputs and options only; the reference's outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/deepconf_cases.pt: a dict of case lists, one list per kind of case. Deterministic.

The reference is imported only to keep the cases away from knife edges that a different but equally valid
float evaluation order could flip: a filter cut between two traces of equal confidence, a group confidence or
a consensus within 1e-9 of its threshold, and a top-eta or bottom-percent count that the orders of evaluation
of ceil(p * n / 100) disagree on.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import torch

from deepconf.config import ConfidenceConfig, DeepConfConfig, ModelConfig, OfflineConfig, OnlineConfig, SamplingConfig
from deepconf.method import token_confidence, trace_confidence
from deepconf.sampling import sample_traces
from deepconf.toy_lm import ToyLM
from deepconf.vocab import VOCAB_SIZE

MARGIN = 1e-9


def ceil_readings_agree(percent: int, n: int) -> bool:
    """Every way of writing ceil(percent / 100 * n) in floats gives the exact integer ceiling."""
    exact = -(-percent * n // 100)
    floats = (percent * n / 100, percent / 100 * n, n * (percent / 100), percent * 0.01 * n, n * percent * 0.01)
    return all(math.ceil(x) == exact for x in floats)


def logprob_rows(g: torch.Generator, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """Log-softmax of random logits with a random sharpness per row (peaked and flat distributions)."""
    scale = torch.rand(*shape[:-1], 1, generator=g, dtype=torch.float64) * 6.0 + 0.2
    logits = torch.randn(*shape, generator=g, dtype=torch.float64) * scale
    return torch.log_softmax(logits, dim=-1).to(dtype)


def token_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for shape, k in (((12, 20), 5), ((3, 7, 20), 1), ((20,), 20), ((1, 16), 3), ((2, 1, 9), 9), ((30, 20), 2)):
        for dtype in (torch.float64, torch.float32):
            cases.append({"logprobs": logprob_rows(g, shape, dtype), "k": k})
    return cases


def group_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for length, window in ((20, 8), (8, 8), (5, 8), (1, 3), (1, 1), (13, 1), (9, 2), (40, 16), (17, 16)):
        for dtype in (torch.float64, torch.float32):
            conf = (torch.rand(length, generator=g, dtype=torch.float64) * 3 + 0.5).to(dtype)
            cases.append({"token_conf": conf, "window": window})
    return cases


def measure_cases(g: torch.Generator) -> list[dict]:
    cases = []
    settings = ((30, 4, 10, 6), (40, 8, 10, 8), (12, 8, 10, 20), (25, 5, 25, 1), (7, 10, 10, 3), (50, 3, 20, 50),
                (1, 4, 10, 4), (19, 1, 50, 5), (60, 11, 10, 16), (70, 4, 3, 6))
    for length, window, bottom, tail in settings:
        groups = max(1, length - window + 1)
        assert ceil_readings_agree(bottom, groups), (bottom, groups)
        for dtype in (torch.float64, torch.float32):
            conf = (torch.rand(length, generator=g, dtype=torch.float64) * 3 + 0.5).to(dtype)
            cases.append({"token_conf": conf, "window": window, "bottom_percent": bottom, "tail_tokens": tail})
    return cases


def vote_cases(g: torch.Generator) -> list[dict]:
    cases = [
        {"answers": ["7", "3", "7", None, "3", "12"], "weights": [1.5, 2.0, 1.0, 9.0, 0.25, 2.5]},
        {"answers": ["1", "2", "2", "1"], "weights": [0.5, 0.25, 0.25, 0.5]},  # tie 1.0 : 1.0, "1" first
        {"answers": ["2", "1", "1", "2"], "weights": [0.5, 0.25, 0.25, 0.5]},  # tie, "2" first
        {"answers": [None, None], "weights": [1.0, 2.0]},
        {"answers": [], "weights": []},
        {"answers": ["5"], "weights": [3.25]},
    ]
    for n in (10, 40):
        answers = [None if torch.rand(1, generator=g) < 0.15 else str(int(torch.randint(0, 5, (1,), generator=g)))
                   for _ in range(n)]
        weights = (torch.rand(n, generator=g, dtype=torch.float64) * 4 + 0.5).tolist()
        cases.append({"answers": answers, "weights": weights})
    return cases


def offline_cfgs(window: int, tail: int, top_k: int) -> list[dict]:
    return [{"measure": m, "keep_percent": p, "window": window, "tail_tokens": tail, "top_k": top_k}
            for m in ("mean", "bottom", "lowest", "tail") for p in (10, 30, 90, 100)]


def make_cfg(c: dict) -> DeepConfConfig:
    return DeepConfConfig(
        model=ModelConfig(seed=c.get("model_seed", 0)),
        sampling=SamplingConfig(temperature=c.get("temperature", 1.0), max_new_tokens=c.get("max_new_tokens", 48)),
        confidence=ConfidenceConfig(top_k=c.get("top_k", 5), window=c.get("window", 8),
                                    bottom_percent=c.get("bottom_percent", 10), tail_tokens=c.get("tail_tokens", 8)),
        offline=OfflineConfig(measure=c.get("measure", "bottom"), keep_percent=c.get("keep_percent", 10)),
        online=OnlineConfig(warmup_traces=c.get("warmup_traces", 8), budget=c.get("budget", 32),
                            consensus=c.get("consensus", 0.95), keep_percent=c.get("online_keep", 10)))


def offline_safe(traces, cfg: DeepConfConfig) -> bool:
    answered = [t for t in traces if t.answer is not None]
    conf = sorted((float(trace_confidence(token_confidence(t.logprobs, cfg.confidence.top_k), cfg.offline.measure,
                                          cfg.confidence)) for t in answered), reverse=True)
    keep = -(-cfg.offline.keep_percent * len(conf) // 100)
    groups_ok = all(ceil_readings_agree(cfg.confidence.bottom_percent,
                                        max(1, t.num_tokens - cfg.confidence.window + 1)) for t in answered)
    cut_ok = keep >= len(conf) or conf[keep - 1] - conf[keep] > MARGIN
    return groups_ok and cut_ok and ceil_readings_agree(cfg.offline.keep_percent, len(conf))


def offline_cases() -> list[dict]:
    cases = []
    for prompt, seed, n, window, tail, top_k, temp in (([2, 3, 4], 1, 24, 8, 8, 5, 1.0), ([5, 9], 7, 30, 4, 12, 3, 1.0),
                                                       ([11, 2, 6, 3], 3, 16, 6, 4, 8, 0.8),
                                                       ([7], 5, 30, 10, 10, 5, 1.2)):
        cfgs = offline_cfgs(window, tail, top_k)
        lm = ToyLM(ModelConfig())
        traces = sample_traces(lm, prompt, torch.Generator().manual_seed(seed), SamplingConfig(temp, 40), n)
        safe = [c for c in cfgs if offline_safe(traces, make_cfg(c))]
        assert len(safe) == len(cfgs), [c for c in cfgs if c not in safe]
        cases.append({"prompt": prompt, "seed": seed, "n": n, "temperature": temp, "max_new_tokens": 40,
                      "cfgs": cfgs})
    return cases


def online_safe(case: dict) -> None:
    """Replays the reference's run and asserts that no decision lies within MARGIN of its threshold."""
    from deepconf.method import deepconf_online

    cfg = make_cfg(case)
    lm = ToyLM(cfg.model)
    result = deepconf_online(lm, case["prompt"], torch.Generator().manual_seed(case["seed"]), cfg)
    s, k, n = result.threshold, cfg.confidence.top_k, cfg.confidence.window
    for trace in result.traces[cfg.online.warmup_traces:]:
        tc = token_confidence(trace.logprobs, k).numpy()
        if len(tc) >= n:
            windows = np.convolve(tc, np.ones(n) / n, mode="valid")
            assert np.abs(windows - s).min() > MARGIN, case
    # a single vote gives a consensus of exactly 1.0 in every evaluation order (x / x)
    exact_one = result.consensus == 1.0 and len(result.vote.voters) == 1
    assert exact_one or abs(result.consensus - cfg.online.consensus) > MARGIN, case


def online_cases() -> list[dict]:
    cases = [
        {"name": "low", "prompt": [2, 3, 4], "seed": 11, "warmup_traces": 8, "budget": 24, "online_keep": 10},
        {"name": "high", "prompt": [2, 3, 4], "seed": 11, "warmup_traces": 8, "budget": 24, "online_keep": 90},
        {"name": "consensus_after_10", "prompt": [5, 9, 2], "seed": 2, "warmup_traces": 6, "budget": 24,
         "consensus": 0.75, "online_keep": 50, "temperature": 0.6},
        {"name": "consensus_after_20", "prompt": [5, 9, 2], "seed": 2, "warmup_traces": 6, "budget": 24,
         "consensus": 0.6, "online_keep": 50, "temperature": 0.5},
        {"name": "consensus_at_warmup", "prompt": [5, 9, 2], "seed": 1, "warmup_traces": 6, "budget": 24,
         "consensus": 0.6, "online_keep": 50, "temperature": 0.6},
        {"name": "warmup_is_budget", "prompt": [7, 7, 3], "seed": 2, "warmup_traces": 10, "budget": 10,
         "online_keep": 10},
        {"name": "window4_k3_eta50", "prompt": [11, 2, 6, 3], "seed": 9, "warmup_traces": 6, "budget": 20,
         "online_keep": 50, "window": 4, "top_k": 3, "temperature": 0.8, "consensus": 0.8},
        {"name": "long_window", "prompt": [3, 8], "seed": 5, "warmup_traces": 6, "budget": 16, "online_keep": 30,
         "window": 30, "max_new_tokens": 40},
        {"name": "one_warmup", "prompt": [4], "seed": 6, "warmup_traces": 1, "budget": 12, "online_keep": 90,
         "consensus": 1.0},
        {"name": "no_answers", "prompt": [6, 2], "seed": 12, "warmup_traces": 3, "budget": 7, "online_keep": 50,
         "max_new_tokens": 6, "window": 4},
        {"name": "short_traces", "prompt": [9, 9, 2], "seed": 8, "warmup_traces": 8, "budget": 20,
         "online_keep": 60, "max_new_tokens": 22, "model_seed": 3, "window": 6},
    ]
    for c in cases:
        online_safe(c)
    return cases


def main(out_dir: str) -> None:
    g = torch.Generator().manual_seed(20250821)
    cases = {"token": token_cases(g), "group": group_cases(g), "measure": measure_cases(g), "vote": vote_cases(g),
             "offline": offline_cases(), "online": online_cases(), "vocab": VOCAB_SIZE}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "deepconf_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
