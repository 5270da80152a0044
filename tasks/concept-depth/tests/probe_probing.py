"""Probe for concept-depth/1: `fit_logistic_regression` and `probe_layers` in conceptdepth/probing.py.
Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_probing.py add the hand-checked fits and the properties of the probes."""
import math
from pathlib import Path

import torch

from conceptdepth.data import concept_dataset
from conceptdepth.probing import LayerProbe, fit_logistic_regression, probe_layers
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
FITS = torch.load(FIXTURES / "fit_cases.pt", weights_only=True)
PROBES = torch.load(FIXTURES / "probe_cases.pt", weights_only=True)

X_SYM = torch.tensor([[1.0], [-1.0]], dtype=torch.float64)
Y_SYM = torch.tensor([1, 0])

# the old tests' tolerances: fitted weights and biases atol 1e-8 / rtol 1e-8; metrics atol 1e-12, rtol 0
FIT_TOL = dict(rtol=1e-8, atol=1e-8)
PROBE_TOL = dict(rtol=1e-8, atol=1e-8, outputs={"*accuracy*": dict(rtol=0.0, atol=1e-12),
                                                "*f1*": dict(rtol=0.0, atol=1e-12),
                                                "*auc*": dict(rtol=0.0, atol=1e-12)})


def fit(X, y, **kw) -> dict:
    w, b = fit_logistic_regression(X, y, **kw)
    return {"w": w, "b": b, "b_is_float": isinstance(b, float)}


# ---------------------------------------------------------------- fit_logistic_regression: hand-checked


@case(rtol=0.0, atol=1e-9)
def hand_checked_optimum():
    return fit(X_SYM, Y_SYM, l2=1.0 / (1.0 + math.e))


@case(rtol=0.0, atol=1e-12)
def hand_checked_single_newton_step():
    return {"tol_default": fit(X_SYM, Y_SYM, l2=0.25, max_iter=1),
            "tol_0.5": fit(X_SYM, Y_SYM, l2=0.25, max_iter=1, tol=0.5),
            "tol_0.6": fit(X_SYM, Y_SYM, l2=0.25, max_iter=1, tol=0.6)}


@case(rtol=0.0, atol=1e-12, outputs={"b": dict(atol=1e-9)})
def hand_checked_unpenalised_intercept():
    return fit(torch.zeros(4, 2, dtype=torch.float64), torch.tensor([1, 1, 1, 0]), l2=0.5)


# ---------------------------------------------------------------- fit_logistic_regression: differential and properties


@case(params=range(len(FITS)), **FIT_TOL)
def fit_matches_reference(k):
    c = FITS[k]
    return fit(c["X"], c["y"], l2=c["l2"], max_iter=c["max_iter"])


STATIONARY = [k for k, c in enumerate(FITS) if c["max_iter"] == 50]


@case(params=STATIONARY, ids=[str(k) for k in STATIONARY], **FIT_TOL)
def fit_reaches_stationary_point(k):
    c = FITS[k]
    return {"X": c["X"], "y": c["y"], "l2": c["l2"], **fit(c["X"], c["y"], l2=c["l2"])}


@case(rtol=0.0, atol=1e-10)
def fit_uses_the_mean_loss():
    # duplicating every example leaves the mean loss, hence the minimiser, unchanged
    c = FITS[1]
    return {"once": fit(c["X"], c["y"], l2=0.1),
            "twice": fit(torch.cat([c["X"], c["X"]]), torch.cat([c["y"], c["y"]]), l2=0.1)}


@case(rtol=0.0, atol=1e-9)
def fit_label_flip_symmetry():
    c = FITS[2]
    return {"labels": fit(c["X"], c["y"], l2=0.01), "flipped": fit(c["X"], 1 - c["y"], l2=0.01)}


@case
def fit_rejects_zero_l2():
    return {"result": fit_logistic_regression(X_SYM, Y_SYM, l2=0.0)}


@case
def fit_rejects_only_class_one():
    return {"result": fit_logistic_regression(X_SYM, torch.tensor([1, 1]), l2=0.1)}


@case
def fit_rejects_only_class_zero():
    return {"result": fit_logistic_regression(X_SYM, torch.tensor([0, 0]), l2=0.1)}


# ---------------------------------------------------------------- probe_layers


def run_probe(c):
    h = list(c["hidden"].unbind(0)) if c["as_list"] else c["hidden"]
    return probe_layers(h, c["labels"], test_fraction=c["test_fraction"], seed=c["seed"], l2=c["l2"])


def metrics(res) -> dict:
    out = {name: torch.tensor([getattr(p, name) for p in res], dtype=torch.float64)
           for name in ("accuracy", "f1", "auc")}
    out["weight"] = torch.stack([p.weight for p in res])
    out["bias"] = torch.tensor([p.bias for p in res], dtype=torch.float64)
    return out


@case(params=range(len(PROBES)), **PROBE_TOL)
def probe_matches_reference(k):
    c = PROBES[k]
    res = run_probe(c)
    return {"is_list": isinstance(res, list), "layers": [p.layer for p in res],
            "all_layer_probes": all(isinstance(p, LayerProbe) for p in res), **metrics(res)}


@case(**PROBE_TOL)
def probe_result_types():
    res = run_probe(PROBES[0])
    return {"types": [[type(p.layer).__name__, type(p.accuracy).__name__, type(p.f1).__name__,
                       type(p.auc).__name__, type(p.bias).__name__] for p in res],
            "weight_dtypes": [p.weight.dtype for p in res]}


@case(params=[(0, 1), (2, 2), (4, 3)], ids=["depth0", "depth2", "depth4"], **PROBE_TOL)
def probe_finds_planted_concept_depth(depth_seed):
    depth, seed = depth_seed
    ds = concept_dataset("t", 120, 6, 10, depth=depth, seed=seed)
    res = probe_layers(ds.hidden_states, ds.labels, test_fraction=0.25, seed=seed)
    return {"depth": depth, **metrics(res)}


@case(**PROBE_TOL)
def probe_is_invariant_to_feature_affine_maps():
    # standardisation with training statistics removes any per-feature shift and positive scale
    c = PROBES[1]
    h = c["hidden"]
    scale = torch.linspace(0.1, 10.0, h.shape[-1], dtype=torch.float64)
    shift = torch.linspace(-50.0, 50.0, h.shape[-1], dtype=torch.float64)
    return {"plain": metrics(run_probe(c)), "mapped": metrics(run_probe(dict(c, hidden=h * scale + shift)))}


@case(**PROBE_TOL)
def probe_uses_one_split_for_all_layers():
    c = PROBES[2]
    h = c["hidden"][:1].repeat(3, 1, 1)  # three identical layers
    return metrics(probe_layers(h, c["labels"], test_fraction=0.3, seed=11))


@case(**PROBE_TOL)
def hand_checked_probe_without_signal():
    h = torch.full((1, 20, 3), 1.5, dtype=torch.float64)
    labels = torch.tensor([0, 1] * 10)
    return metrics(probe_layers(h, labels, test_fraction=0.2, seed=3))


@case(**PROBE_TOL)
def probe_accepts_bool_and_float_labels():
    c = PROBES[0]
    return {"int": metrics(run_probe(c)), "bool": metrics(run_probe(dict(c, labels=c["labels"].bool()))),
            "float": metrics(run_probe(dict(c, labels=c["labels"].double())))}


@case(**PROBE_TOL)
def probe_handles_constant_features():
    c = PROBES[0]
    h = c["hidden"].clone()
    h[:, :, 0] = 3.0
    return {"weights": [p.weight for p in run_probe(dict(c, hidden=h))]}
