"""Hidden tests for conceptdepth.probing: fit_logistic_regression and probe_layers."""
import math
from pathlib import Path

import pytest
import torch

from conceptdepth.analysis import concept_depth
from conceptdepth.data import concept_dataset
from conceptdepth.probing import LayerProbe, fit_logistic_regression, probe_layers

FIXTURES = Path(__file__).parent / "fixtures"
FITS = torch.load(FIXTURES / "fit_cases.pt", weights_only=True)
PROBES = torch.load(FIXTURES / "probe_cases.pt", weights_only=True)

X_SYM = torch.tensor([[1.0], [-1.0]], dtype=torch.float64)
Y_SYM = torch.tensor([1, 0])


def objective_gradient(X, y, w, b, l2):
    """Gradient of J(w, b) = mean_i [log(1 + e^z_i) - y_i z_i] + l2/2 ||w||^2 (intercept unpenalised), by autograd."""
    w = w.clone().requires_grad_(True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    z = X.double() @ w + b
    J = (torch.nn.functional.softplus(z) - y.double() * z).mean() + 0.5 * l2 * (w * w).sum()
    gw, gb = torch.autograd.grad(J, (w, b))
    return torch.cat([gw, gb.reshape(1)])


# ---------------------------------------------------------------- fit_logistic_regression: hand-checked


def test_hand_checked_optimum():
    # X = (1, -1), y = (1, 0): by symmetry b = 0 and J(w) = log(1 + e^-w) + l2 w^2 / 2, whose stationarity
    # condition is l2 * w = sigmoid(-w). With l2 = sigmoid(-1) = 1 / (1 + e) the minimiser is w = 1 exactly.
    w, b = fit_logistic_regression(X_SYM, Y_SYM, l2=1.0 / (1.0 + math.e))
    assert w.shape == (1,) and w.dtype == torch.float64 and isinstance(b, float)
    assert w.item() == pytest.approx(1.0, abs=1e-9)
    assert b == pytest.approx(0.0, abs=1e-9)


def test_hand_checked_single_newton_step():
    # from w = b = 0: p = 1/2, gradient (w, b) = ((1)(1/2 - 1) + (-1)(1/2 - 0)) / 2, 0 = (-1/2, 0);
    # Hessian = [[(1 + 1) / 4 / 2 + l2, 0], [0, 2 / 4 / 2]] = [[1/4 + l2, 0], [0, 1/4]].
    # With l2 = 1/4 one Newton step gives w = (1/2) / (1/2) = 1, b = 0.
    w, b = fit_logistic_regression(X_SYM, Y_SYM, l2=0.25, max_iter=1)
    assert w.item() == pytest.approx(1.0, abs=1e-12) and b == pytest.approx(0.0, abs=1e-12)
    # the stopping test is |g| < tol, strict: the initial gradient 1/2 is not below tol = 1/2 ...
    w, _ = fit_logistic_regression(X_SYM, Y_SYM, l2=0.25, max_iter=1, tol=0.5)
    assert w.item() == pytest.approx(1.0, abs=1e-12)
    # ... but it is below 0.6, so no step is taken
    w, b = fit_logistic_regression(X_SYM, Y_SYM, l2=0.25, max_iter=1, tol=0.6)
    assert w.item() == 0.0 and b == 0.0


def test_hand_checked_unpenalised_intercept():
    # all-zero features: w only pays the penalty, so w = 0, and the intercept matches the base rate:
    # sigmoid(b) = 3/4, i.e. b = log(3) = 1.0986122886681098
    X = torch.zeros(4, 2, dtype=torch.float64)
    w, b = fit_logistic_regression(X, torch.tensor([1, 1, 1, 0]), l2=0.5)
    torch.testing.assert_close(w, torch.zeros(2, dtype=torch.float64), atol=1e-12, rtol=0)
    assert b == pytest.approx(1.0986122886681098, abs=1e-9)


# ---------------------------------------------------------------- fit_logistic_regression: differential and properties


@pytest.mark.parametrize("k", range(len(FITS)))
def test_fit_matches_reference(k):
    c = FITS[k]
    w, b = fit_logistic_regression(c["X"], c["y"], l2=c["l2"], max_iter=c["max_iter"])
    assert w.dtype == torch.float64 and isinstance(b, float)
    torch.testing.assert_close(w, c["w"], atol=1e-8, rtol=1e-8)
    assert b == pytest.approx(float(c["b"]), abs=1e-8, rel=1e-8)


@pytest.mark.parametrize("k", [k for k, c in enumerate(FITS) if c["max_iter"] == 50])
def test_fit_reaches_stationary_point(k):
    c = FITS[k]
    w, b = fit_logistic_regression(c["X"], c["y"], l2=c["l2"])
    assert objective_gradient(c["X"], c["y"], w, b, c["l2"]).abs().max() < 1e-8


def test_fit_uses_the_mean_loss():
    # duplicating every example leaves the mean loss, hence the minimiser, unchanged
    c = FITS[1]
    w1, b1 = fit_logistic_regression(c["X"], c["y"], l2=0.1)
    w2, b2 = fit_logistic_regression(torch.cat([c["X"], c["X"]]), torch.cat([c["y"], c["y"]]), l2=0.1)
    torch.testing.assert_close(w2, w1, atol=1e-10, rtol=0)
    assert b2 == pytest.approx(b1, abs=1e-10)


def test_fit_label_flip_symmetry():
    c = FITS[2]
    w1, b1 = fit_logistic_regression(c["X"], c["y"], l2=0.01)
    w2, b2 = fit_logistic_regression(c["X"], 1 - c["y"], l2=0.01)
    torch.testing.assert_close(w2, -w1, atol=1e-9, rtol=0)
    assert b2 == pytest.approx(-b1, abs=1e-9)


def test_fit_rejects_bad_input():
    with pytest.raises(ValueError):
        fit_logistic_regression(X_SYM, Y_SYM, l2=0.0)
    with pytest.raises(ValueError):
        fit_logistic_regression(X_SYM, torch.tensor([1, 1]), l2=0.1)
    with pytest.raises(ValueError):
        fit_logistic_regression(X_SYM, torch.tensor([0, 0]), l2=0.1)


# ---------------------------------------------------------------- probe_layers


def run_probe(c):
    h = list(c["hidden"].unbind(0)) if c["as_list"] else c["hidden"]
    return probe_layers(h, c["labels"], test_fraction=c["test_fraction"], seed=c["seed"], l2=c["l2"])


@pytest.mark.parametrize("k", range(len(PROBES)))
def test_probe_matches_reference(k):
    c = PROBES[k]
    res = run_probe(c)
    assert isinstance(res, list) and len(res) == c["hidden"].shape[0]
    assert [p.layer for p in res] == list(range(len(res)))
    assert all(isinstance(p, LayerProbe) for p in res)
    for name in ("accuracy", "f1", "auc"):
        got = torch.tensor([getattr(p, name) for p in res], dtype=torch.float64)
        torch.testing.assert_close(got, c[name], atol=1e-12, rtol=0, equal_nan=True, msg=name)
    torch.testing.assert_close(torch.stack([p.weight for p in res]), c["weight"], atol=1e-8, rtol=1e-8)
    torch.testing.assert_close(torch.tensor([p.bias for p in res], dtype=torch.float64), c["bias"], atol=1e-8, rtol=1e-8)


def test_probe_result_types():
    res = run_probe(PROBES[0])
    for p in res:
        assert type(p.layer) is int and type(p.accuracy) is float and type(p.f1) is float
        assert type(p.auc) is float and type(p.bias) is float and p.weight.dtype == torch.float64


def test_probe_finds_planted_concept_depth():
    for depth, seed in [(0, 1), (2, 2), (4, 3)]:
        ds = concept_dataset("t", 120, 6, 10, depth=depth, seed=seed)
        res = probe_layers(ds.hidden_states, ds.labels, test_fraction=0.25, seed=seed)
        acc = [p.accuracy for p in res]
        assert concept_depth(acc, 0.85) == depth
        assert all(a < 0.8 for a in acc[:depth]) and all(a >= 0.85 for a in acc[depth:])
        assert all(p.auc > 0.9 for p in res[depth:])


def test_probe_is_invariant_to_feature_affine_maps():
    # standardisation with training statistics removes any per-feature shift and positive scale
    c = PROBES[1]
    h = c["hidden"]
    scale = torch.linspace(0.1, 10.0, h.shape[-1], dtype=torch.float64)
    shift = torch.linspace(-50.0, 50.0, h.shape[-1], dtype=torch.float64)
    a = run_probe(c)
    b = run_probe(dict(c, hidden=h * scale + shift))
    torch.testing.assert_close(torch.stack([p.weight for p in b]), torch.stack([p.weight for p in a]), atol=1e-8, rtol=1e-8)
    assert [p.accuracy for p in a] == [p.accuracy for p in b] and [p.auc for p in a] == [p.auc for p in b]


def test_probe_uses_one_split_for_all_layers():
    c = PROBES[2]
    h = c["hidden"][:1].repeat(3, 1, 1)  # three identical layers
    res = probe_layers(h, c["labels"], test_fraction=0.3, seed=11)
    for p in res[1:]:
        assert (p.accuracy, p.f1, p.auc, p.bias) == (res[0].accuracy, res[0].f1, res[0].auc, res[0].bias)
        assert torch.equal(p.weight, res[0].weight)


def test_hand_checked_probe_without_signal():
    # every feature constant: standardised features are all 0 (std 0 is replaced by 1), so w = 0; each class has
    # 10 examples, so round(0.2 * 10) = 2 per class go to the test split and the training split is balanced:
    # the gradient at zero vanishes and b = 0 exactly. Every test decision value is then exactly 0, which is not
    # > 0: all four test examples are predicted 0 -> accuracy 2/4 = 0.5, F1 = 0 (no true positive), AUC = 0.5 (all ties).
    h = torch.full((1, 20, 3), 1.5, dtype=torch.float64)
    labels = torch.tensor([0, 1] * 10)
    (p,) = probe_layers(h, labels, test_fraction=0.2, seed=3)
    assert (p.accuracy, p.f1, p.auc, p.bias) == (0.5, 0.0, 0.5, 0.0)
    assert torch.equal(p.weight, torch.zeros(3, dtype=torch.float64))


def test_probe_accepts_bool_and_float_labels():
    c = PROBES[0]
    base = run_probe(c)
    for labels in (c["labels"].bool(), c["labels"].double()):
        other = run_probe(dict(c, labels=labels))
        assert [(p.accuracy, p.f1, p.auc) for p in other] == [(p.accuracy, p.f1, p.auc) for p in base]
        torch.testing.assert_close(torch.stack([p.weight for p in other]), torch.stack([p.weight for p in base]),
                                   atol=1e-12, rtol=0)


def test_probe_handles_constant_features():
    c = PROBES[0]
    h = c["hidden"].clone()
    h[:, :, 0] = 3.0
    for p in run_probe(dict(c, hidden=h)):
        assert torch.isfinite(p.weight).all() and abs(float(p.weight[0])) < 1e-12
