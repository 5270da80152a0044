"""Probe for deepconf/1: DeepConf in deepconf/method.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_deepconf.py add hand-checked values and replay the paper's algorithms on the emitted traces."""
from __future__ import annotations

import math
from pathlib import Path

import torch

from deepconf.config import ConfidenceConfig, DeepConfConfig, ModelConfig, OfflineConfig, OnlineConfig, SamplingConfig
from deepconf.method import (deepconf_offline, deepconf_online, group_confidences, token_confidence,
                             trace_confidence, weighted_vote)
from deepconf.sampling import sample_traces
from deepconf.toy_lm import ToyLM
from deepconf.trace import Trace, Vote
from lmrbench_probe import case

CASES = torch.load(Path(__file__).parent / "fixtures" / "deepconf_cases.pt", weights_only=True)
TOKEN, GROUP, MEASURE, VOTE, OFFLINE, ONLINE = (CASES[k] for k in ("token", "group", "measure", "vote", "offline",
                                                                   "online"))
MEASURES = ("mean", "bottom", "lowest", "tail")
F64 = dict(rtol=1e-12, atol=1e-14)
F32 = dict(rtol=1e-5, atol=1e-6)


def tag(dtype: torch.dtype) -> str:
    return "f32" if dtype == torch.float32 else "f64"


def make_cfg(c: dict) -> DeepConfConfig:
    """The DeepConfConfig of a fixture's options (defaults of the repository where absent)."""
    return DeepConfConfig(
        model=ModelConfig(seed=c.get("model_seed", 0)),
        sampling=SamplingConfig(temperature=c.get("temperature", 1.0), max_new_tokens=c.get("max_new_tokens", 48)),
        confidence=ConfidenceConfig(top_k=c.get("top_k", 5), window=c.get("window", 8),
                                    bottom_percent=c.get("bottom_percent", 10), tail_tokens=c.get("tail_tokens", 8)),
        offline=OfflineConfig(measure=c.get("measure", "bottom"), keep_percent=c.get("keep_percent", 10)),
        online=OnlineConfig(warmup_traces=c.get("warmup_traces", 8), budget=c.get("budget", 32),
                            consensus=c.get("consensus", 0.95), keep_percent=c.get("online_keep", 10)))


def vote_out(vote: Vote) -> dict:
    return {"answer": vote.answer, "totals": {a: float(w) for a, w in vote.totals.items()},
            "voters": [int(i) for i in vote.voters]}


def traces_out(traces: list[Trace]) -> dict:
    """The traces as flat data, for the checks' replay."""
    return {"lengths": [t.num_tokens for t in traces], "stopped": [bool(t.stopped) for t in traces],
            "answers": [t.answer for t in traces],
            "token_ids": torch.tensor([i for t in traces for i in t.token_ids], dtype=torch.long),
            "logprobs": torch.cat([t.logprobs for t in traces]).to(torch.float64)}


# ---------------------------------------------------------------- token_confidence


@case(params=range(len(TOKEN)), outputs={"f32.*": F32}, **F64)
def token_matches_reference(i):
    c = TOKEN[i]
    out = token_confidence(c["logprobs"].clone(), c["k"])
    return {f"{tag(c['logprobs'].dtype)}.conf": out, "logprobs": c["logprobs"].to(torch.float64), "k": c["k"]}


@case(**F64)
def token_hand_values():
    dyadic = torch.log(torch.tensor([0.125, 0.5, 0.125, 0.25], dtype=torch.float64))
    uniform = torch.full((20,), -math.log(20.0), dtype=torch.float64)
    peaked = torch.log(torch.tensor([0.1, 0.7, 0.1, 0.1], dtype=torch.float64))
    return {"dyadic_k1": token_confidence(dyadic, 1), "dyadic_k2": token_confidence(dyadic, 2),
            "dyadic_k4": token_confidence(dyadic, 4), "uniform_k5": token_confidence(uniform, 5),
            "peaked_k4": token_confidence(peaked, 4),
            "batch": token_confidence(torch.stack([dyadic, peaked]).unsqueeze(0), 2)}


@case(params=[0, 21, -1], ids=["k0", "k_over_V", "k_negative"])
def token_rejects_bad_k(k):
    return {"result": token_confidence(torch.log_softmax(torch.randn(3, 20, dtype=torch.float64), -1), k)}


# ---------------------------------------------------------------- group_confidences


@case(params=range(len(GROUP)), outputs={"f32.*": F32}, **F64)
def groups_match_reference(i):
    c = GROUP[i]
    out = group_confidences(c["token_conf"].clone(), c["window"])
    return {f"{tag(c['token_conf'].dtype)}.groups": out, "token_conf": c["token_conf"].to(torch.float64),
            "window": c["window"]}


@case(**F64)
def groups_hand_values():
    conf = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=torch.float64)
    return {f"w{w}": group_confidences(conf, w) for w in (1, 2, 4, 5, 7)}


@case(params=["window0", "empty", "two_d"])
def groups_reject_bad_input(kind):
    conf = {"window0": torch.ones(4), "empty": torch.ones(0), "two_d": torch.ones(2, 4)}[kind]
    return {"result": group_confidences(conf, 0 if kind == "window0" else 2)}


# ---------------------------------------------------------------- trace_confidence


@case(params=range(len(MEASURE)), outputs={"f32.*": F32}, **F64)
def measures_match_reference(i):
    c = MEASURE[i]
    cfg = ConfidenceConfig(window=c["window"], bottom_percent=c["bottom_percent"], tail_tokens=c["tail_tokens"])
    out = {m: trace_confidence(c["token_conf"].clone(), m, cfg) for m in MEASURES}
    return {tag(c["token_conf"].dtype): out, "token_conf": c["token_conf"].to(torch.float64), "window": c["window"],
            "bottom_percent": c["bottom_percent"], "tail_tokens": c["tail_tokens"]}


@case(**F64)
def measures_hand_values():
    conf = torch.tensor([4.0, 1.0, 3.0, 2.0, 5.0, 6.0, 0.5, 2.5], dtype=torch.float64)
    out = {}
    for bottom in (10, 30, 50):
        for tail in (4, 20):
            cfg = ConfidenceConfig(window=2, bottom_percent=bottom, tail_tokens=tail)
            out[f"b{bottom}_t{tail}"] = {m: trace_confidence(conf, m, cfg) for m in MEASURES}
    out["window_over_length"] = {m: trace_confidence(conf, m, ConfidenceConfig(window=9, tail_tokens=2))
                                 for m in MEASURES}
    return out


@case(params=["unknown_measure", "empty"])
def measures_reject_bad_input(kind):
    if kind == "empty":
        return {"result": trace_confidence(torch.ones(0, dtype=torch.float64), "mean", ConfidenceConfig())}
    return {"result": trace_confidence(torch.ones(5, dtype=torch.float64), "median", ConfidenceConfig())}


# ---------------------------------------------------------------- weighted_vote


@case(params=range(len(VOTE)), **F64)
def vote_matches_reference(i):
    c = VOTE[i]
    out = vote_out(weighted_vote(list(c["answers"]), list(c["weights"])))
    return {**out, "answers": list(c["answers"]),
            "weights": [float(w) for w in c["weights"]]}


@case
def vote_rejects_length_mismatch():
    return {"result": weighted_vote(["1", "2"], [1.0])}


# ---------------------------------------------------------------- deepconf_offline


def hand_traces() -> list[Trace]:
    uniform = torch.full((4,), -math.log(4.0), dtype=torch.float64)            # confidence ln 4
    dyadic = torch.log(torch.tensor([0.5, 0.25, 0.125, 0.125], dtype=torch.float64))  # 9/4 ln 2
    peaked = torch.log(torch.tensor([0.7, 0.1, 0.1, 0.1], dtype=torch.float64))       # -(ln .7 + 3 ln .1) / 4
    rows = {"A": uniform, "B": dyadic, "C": peaked}
    spec = (("3", "AA"), ("5", "C"), (None, "CC"), ("5", "BC"), ("3", "ABA"), ("3", "A"))
    return [Trace([2] * len(r), torch.stack([rows[x] for x in r]), a) for a, r in spec]


@case(**F64)
def offline_hand_values():
    traces = hand_traces()
    out = {}
    for keep in (100, 50, 10):
        cfg = DeepConfConfig(confidence=ConfidenceConfig(top_k=4), offline=OfflineConfig("mean", keep))
        out[f"keep{keep}"] = vote_out(deepconf_offline(traces, cfg))
    return out


@case(params=range(len(OFFLINE)), **F64)
def offline_matches_reference(i):
    c = OFFLINE[i]
    lm = ToyLM(ModelConfig())
    traces = sample_traces(lm, c["prompt"], torch.Generator().manual_seed(c["seed"]),
                           SamplingConfig(c["temperature"], c["max_new_tokens"]), c["n"])
    runs = []
    for opts in c["cfgs"]:
        cfg = make_cfg(opts)
        conf = [trace_confidence(token_confidence(t.logprobs, cfg.confidence.top_k), cfg.offline.measure,
                                 cfg.confidence) for t in traces]
        runs.append({**vote_out(deepconf_offline(traces, cfg)), "confidence": torch.stack(conf)})
    return {"runs": runs, "cfgs": [dict(o) for o in c["cfgs"]], "traces": traces_out(traces)}


@case
def offline_without_answers():
    traces = hand_traces()
    for t in traces:
        t.answer = None
    return vote_out(deepconf_offline(traces, DeepConfConfig(offline=OfflineConfig("lowest", 90))))


# ---------------------------------------------------------------- deepconf_online


@case(params=range(len(ONLINE)), ids=[c["name"] for c in ONLINE], **F64)
def online_matches_reference(i):
    c = ONLINE[i]
    cfg = make_cfg(c)
    result = deepconf_online(ToyLM(cfg.model), list(c["prompt"]), torch.Generator().manual_seed(c["seed"]), cfg)
    return {**vote_out(result.vote), "threshold": float(result.threshold), "consensus": float(result.consensus),
            "num_tokens": result.num_tokens, "traces": traces_out(result.traces),
            "options": {k: v for k, v in c.items() if k != "prompt"}}


@case(params=[(0, 4), (5, 4)], ids=["no_warmup", "warmup_over_budget"])
def online_rejects_bad_budget(arg):
    warmup, budget = arg
    cfg = DeepConfConfig(online=OnlineConfig(warmup_traces=warmup, budget=budget))
    return {"result": deepconf_online(ToyLM(cfg.model), [3, 4], torch.Generator().manual_seed(0), cfg)}
