"""Probe for mauve/1: KL, the divergence curve, its area, the joint quantisation and MAUVE of
mauve/divergence.py. Runs in the sandbox; emits outputs only, never compares.

Histogram-level outputs are float64 computations compared at rtol 1e-9 (NOTES.md: the reference's own spread
is below 1e-13); cluster labels and histograms from features are exact (well separated blobs; NOTES.md)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lmrbench_probe import case
from mauve.config import MauveConfig
from mauve.data import human_texts, model_texts
from mauve.divergence import compute_mauve, curve_area, divergence_curve, kl_divergence, quantize
from mauve.features import featurize

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
TOL = dict(rtol=1e-9, atol=1e-12)


def arr(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


# ---------------------------------------------------------------- cheap hand cases


@case(**TOL)
def kl_hand():
    return {"half_quarter": kl_divergence(arr([0.5, 0.5]), arr([0.25, 0.75])),
            "same": kl_divergence(arr([0.2, 0.3, 0.5]), arr([0.2, 0.3, 0.5])),
            "zero_in_a": kl_divergence(arr([0.0, 1.0]), arr([0.5, 0.5])),
            "zero_in_b": kl_divergence(arr([0.5, 0.5]), arr([1.0, 0.0])),
            "list_input": kl_divergence([0.1, 0.9], [0.9, 0.1])}


@case
def kl_shape_mismatch_raises():
    return {"kl": kl_divergence(arr([0.5, 0.5]), arr([0.2, 0.3, 0.5]))}


@case(**TOL)
def curve_identical():
    p = arr([0.1, 0.2, 0.3, 0.4])
    curve = divergence_curve(p, p.copy(), MauveConfig(num_lambdas=5))
    return {"curve": curve, "area": curve_area(curve)}


@case(**TOL)
def curve_disjoint():
    out = {}
    for name, cfg in [("default", MauveConfig()), ("c1_l9", MauveConfig(scaling=1.0, num_lambdas=9))]:
        curve = divergence_curve(arr([1.0, 0.0]), arr([0.0, 1.0]), cfg)
        out[name] = {"curve": curve, "area": curve_area(curve)}
    return out


@case(**TOL)
def curve_area_hand():
    return {"square": curve_area(arr([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])),
            "triangle": curve_area(arr([[0.0, 1.0], [1.0, 0.0]])),
            "steps": curve_area(arr([[0.0, 1.0], [0.25, 0.9], [0.5, 0.5], [0.9, 0.1], [1.0, 0.0]]))}


@case(params=range(len(CASES["pairs"])), **TOL)
def curve_pairs(i):
    c = CASES["pairs"][i]
    cfg = MauveConfig(**c["cfg"])
    p, q = arr(c["p"]), arr(c["q"])
    curve = divergence_curve(p, q, cfg)
    swapped = divergence_curve(q, p, cfg)
    return {"case": i, "kl_pq": kl_divergence(p, q), "kl_qp": kl_divergence(q, p), "curve": curve,
            "area": curve_area(curve), "area_swapped": curve_area(swapped)}


# ---------------------------------------------------------------- quantisation and MAUVE from features


@case(params=range(len(CASES["features"])), **TOL)
def quantize_blobs(i):
    c = CASES["features"][i]
    cfg = MauveConfig(**c["cfg"])
    qz = quantize(arr(c["p"]), arr(c["q"]), cfg)
    result = compute_mauve(arr(c["p"]), arr(c["q"]), cfg)
    return {"case": i, "p_hist": qz.p_hist, "q_hist": qz.q_hist, "p_labels": qz.p_labels, "q_labels": qz.q_labels,
            "num_buckets": qz.num_buckets, "score": result.score, "curve": result.curve,
            "result_p_hist": result.p_hist, "result_q_hist": result.q_hist, "result_buckets": result.num_buckets}


@case(**TOL)
def quantize_lists_and_float32():
    c = CASES["features"][0]
    qz = quantize(c["p"], np.asarray(c["q"], dtype=np.float32).astype(np.float64), MauveConfig())
    return {"p_hist": qz.p_hist, "q_hist": qz.q_hist, "num_buckets": qz.num_buckets}


@case
def quantize_dims_mismatch_raises():
    return {"q": quantize(np.zeros((4, 3)), np.zeros((4, 2)), MauveConfig(num_buckets=2))}


@case
def quantize_empty_raises():
    return {"q": quantize(np.zeros((0, 3)), np.ones((4, 3)), MauveConfig(num_buckets=2))}


@case(**TOL)
def mauve_texts():
    rng = np.random.default_rng(11)
    p = featurize(human_texts(60, rng))
    out = {}
    for name, kw in [("human", dict()), ("repetitive", dict(exponent=2.0, repeat=0.5))]:
        q = featurize(model_texts(60, rng, **kw))
        res = compute_mauve(p, q, MauveConfig(num_buckets=6))
        out[name] = {"score": res.score, "curve": res.curve, "p_hist": res.p_hist, "q_hist": res.q_hist}
    return out


@case(**TOL)
def mauve_same_samples_default_config():
    rng = np.random.default_rng(5)
    p = featurize(human_texts(40, rng))
    res = compute_mauve(p, p.copy())
    return {"score": res.score, "buckets": res.num_buckets, "p_hist": res.p_hist, "q_hist": res.q_hist}


@case
def quantize_empty_q_raises():
    return {"q": quantize(np.ones((4, 3)), np.zeros((0, 3)), MauveConfig(num_buckets=2))}
