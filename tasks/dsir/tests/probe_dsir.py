"""Probe for dsir/1: DSIR in dsir/importance.py. Runs in the sandbox; emits outputs only, never compares.
Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_dsir.py add hand-checked values and the paper's properties."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from dsir.config import DSIRConfig
from dsir.corpus import make_corpus
from dsir.importance import (dsir_select, featurize, fit_feature_distribution, importance_log_weights, kl_divergence,
                             kl_reduction, resample)
from dsir.rng import make_rng
from lmrbench_probe import case

with open(Path(__file__).parent / "fixtures" / "dsir_cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

F64 = dict(rtol=1e-10, atol=1e-12)
W64 = dict(rtol=1e-9, atol=1e-9)  # sums of many log-ratio terms (see NOTES.md)


def arr(x, dtype=np.float64) -> np.ndarray:
    return np.asarray(x, dtype=dtype)


def ints(idx) -> np.ndarray:
    return np.asarray(idx).astype(np.int64).reshape(-1)


# ---------------------------------------------------------------- featurize


@case(params=range(len(CASES["featurize"])), compare="exact", dtype=False)
def featurize_matches_reference(i):
    c = CASES["featurize"][i]
    cfg = DSIRConfig(num_buckets=c["num_buckets"], ngram_orders=tuple(c["ngram_orders"]))
    out = featurize(c["texts"], cfg)
    return {"case": i, "counts": np.asarray(out).astype(np.int64), "shape": np.asarray(np.shape(out), dtype=np.int64),
            "integer": bool(np.issubdtype(np.asarray(out).dtype, np.integer))}


@case(compare="exact", dtype=False)
def featurize_empty_list():
    out = featurize([], DSIRConfig(num_buckets=5))
    return {"shape": np.asarray(np.shape(out), dtype=np.int64)}


# ---------------------------------------------------------------- fit_feature_distribution


@case(params=range(len(CASES["fit"])), **F64, outputs={"counts_after": {"compare": "exact"}})
def fit_matches_reference(i):
    c = CASES["fit"][i]
    counts = arr(c["counts"], np.int64).reshape(-1, c["m"])
    out = fit_feature_distribution(counts, c["smoothing"])
    return {"case": i, "dist": arr(out), "counts_after": counts}


@case
def fit_rejects_one_dimensional():
    return {"dist": fit_feature_distribution(np.array([1, 2, 3]), 1.0)}


@case
def fit_rejects_nothing_to_normalise():
    return {"dist": fit_feature_distribution(np.zeros((3, 4), dtype=np.int64), 0.0)}


# ---------------------------------------------------------------- importance weights


@case(params=range(len(CASES["weights"])), **W64)
def log_weights_match_reference(i):
    c = CASES["weights"][i]
    out = importance_log_weights(arr(c["counts"], np.int64), arr(c["target"]), arr(c["raw"]))
    return {"case": i, "log_weights": arr(out).reshape(-1)}


@case(**W64)
def log_weights_hand_values():
    counts = np.array([[2, 0, 1], [0, 0, 0], [0, 3, 0]], dtype=np.int64)
    out = importance_log_weights(counts, np.array([0.5, 0.25, 0.25]), np.array([0.25, 0.5, 0.25]))
    return {"log_weights": arr(out).reshape(-1)}


# ---------------------------------------------------------------- resampling


@case(params=range(len(CASES["resample"])), compare="exact", dtype=False, outputs={"returned": {"compare": "none"}})
def resample_matches_reference(i):
    c = CASES["resample"][i]
    idx = resample(arr(c["log_weights"]), c["k"], make_rng(c["seed"]), resample=c["resample"])
    return {"case": i, "returned": ints(idx), "selected": np.sort(ints(idx)), "length": int(np.size(idx))}


@case(params=[-1, 4])
def resample_rejects_k(k):
    return {"idx": resample(np.zeros(3), k, make_rng(0))}


@case(compare="none")
def resample_frequencies():
    # one of four examples, weights 1 : 2 : 3 : 4, many independent draws from one generator
    rng = make_rng(11)
    lw = np.log(np.array([1.0, 2.0, 3.0, 4.0]))
    picks = np.array([int(ints(resample(lw, 1, rng))[0]) for _ in range(4000)])
    pairs = [tuple(sorted(ints(resample(lw, 2, rng)).tolist())) for _ in range(3000)]
    return {"freq": np.bincount(picks, minlength=4) / 4000.0,
            "pair_freq": np.array([sum(p == (a, b) for p in pairs) / 3000.0
                                   for a in range(4) for b in range(a + 1, 4)])}


@case(compare="exact", dtype=False, outputs={"returned": {"compare": "none"}})
def resample_top_k_is_deterministic():
    lw = np.array([0.3, -1.0, 2.5, 0.9, 2.4, -0.2])
    a = ints(resample(lw, 3, make_rng(0), resample=False))
    b = ints(resample(lw, 3, make_rng(99), resample=False))
    return {"returned": a, "selected": np.sort(a), "other_seed": np.sort(b)}


# ---------------------------------------------------------------- KL


@case(params=range(len(CASES["kl"])), **F64)
def kl_divergence_matches_reference(i):
    c = CASES["kl"][i]
    return {"case": i, "kl": float(kl_divergence(arr(c["p"]), arr(c["q"])))}


@case(params=range(len(CASES["kl_reduction"])), **W64)
def kl_reduction_matches_reference(i):
    c = CASES["kl_reduction"][i]
    raw = arr(c["raw"], np.int64)
    targets = [arr(t, np.int64).reshape(-1, raw.shape[1]) for t in c["targets"]]
    sel = raw[np.asarray(c["selected"], dtype=np.int64)]
    return {"case": i, "reduction": float(kl_reduction(sel, raw, targets, c["smoothing"])),
            "raw_itself": float(kl_reduction(raw, raw, targets, c["smoothing"]))}


@case
def kl_reduction_rejects_no_target():
    raw = np.ones((3, 4), dtype=np.int64)
    return {"reduction": kl_reduction(raw[:1], raw, [], 1.0)}


# ---------------------------------------------------------------- end to end


def config_of(c: dict) -> DSIRConfig:
    k = c["config"]
    return DSIRConfig(num_buckets=k["num_buckets"], ngram_orders=tuple(k["ngram_orders"]), smoothing=k["smoothing"],
                      resample=k["resample"], seed=k["seed"])


@case(params=range(len(CASES["end_to_end"])), **W64, outputs={"returned": {"compare": "none"},
                                                               "selected": {"compare": "exact", "dtype": False},
                                                               "target_fraction": {"compare": "exact"}})
def dsir_select_matches_reference(i):
    c = CASES["end_to_end"][i]
    cfg = config_of(c)
    sel = dsir_select(c["raw"], c["target"], c["k"], cfg, make_rng(cfg.seed))
    idx = ints(sel.indices)
    return {"case": i, "returned": idx, "selected": np.sort(idx), "log_weights": arr(sel.log_weights).reshape(-1),
            "target_dist": arr(sel.target_dist), "raw_dist": arr(sel.raw_dist),
            "target_fraction": float(np.mean([c["raw_domains"][j] == c["domain"] for j in idx]))}


@case
def dsir_select_rejects_k():
    c = CASES["end_to_end"][0]
    return {"sel": dsir_select(c["raw"], c["target"], len(c["raw"]) + 1, config_of(c), make_rng(0))}


@case(**W64, outputs={"*_fraction": {"compare": "none"}, "selected": {"compare": "exact", "dtype": False}})
def select_script_runs():
    from select_data import run
    out = run(k=60, target_domain="code", config=DSIRConfig(num_buckets=2000), n_raw=200, n_target=30)
    return {"selected": np.sort(ints(out["indices"])), "log_weights": arr(out["log_weights"]),
            "dsir_kl_reduction": float(out["dsir_kl_reduction"]),
            "random_kl_reduction": float(out["random_kl_reduction"]),
            "dsir_code_fraction": out["dsir_domains"]["code"] / 60.0,
            "random_code_fraction": out["random_domains"]["code"] / 60.0}
