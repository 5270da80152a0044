"""Trusted checks for concept-depth/1 (never enter the sandbox): hand-checked fits and probes and the
properties of `fit_logistic_regression` / `probe_layers`, on the outputs probe_probing.py emitted. The default
comparison with the reference's outputs has already passed; inputs are read from the reference's run (`ref`)."""
import numpy as np

from lmrbench.checks import CheckFailed, check, close, equal, expect, finite

# fnmatch reads "[...]" as a character class, so parametrised cases are matched as "name*"


def approx(got, want, what, rel=None, absolute=None):
    """pytest.approx(want, rel=, abs=) semantics: |got - want| <= max(rel * |want|, abs); abs alone means no
    relative part. `got` must be a Python float (the old tests' values were floats)."""
    tol = absolute if rel is None else max(rel * np.abs(want), 1e-12 if absolute is None else absolute)
    if not isinstance(got, float) or not np.abs(got - want) <= tol:
        raise CheckFailed(f"{what}: got {got!r}, want {want!r} +- {tol:g}")


def fitted(out, key=""):
    prefix = f"{key}." if key else ""
    equal(out[f"{prefix}w#dtype"], "float64", what="w dtype")
    equal(out[f"{prefix}b_is_float"], True, what="b is a Python float")
    return out[f"{prefix}w"], out[f"{prefix}b"]


# ---------------------------------------------------------------- fit_logistic_regression: hand-checked


@check("hand_checked_optimum")
def hand_checked_optimum(out, ref):
    # X = (1, -1), y = (1, 0): by symmetry b = 0 and J(w) = log(1 + e^-w) + l2 w^2 / 2, whose stationarity
    # condition is l2 * w = sigmoid(-w). With l2 = sigmoid(-1) = 1 / (1 + e) the minimiser is w = 1 exactly.
    w, b = fitted(out)
    equal(tuple(w.shape), (1,), what="w shape")
    approx(float(w[0]), 1.0, "w", absolute=1e-9)
    approx(b, 0.0, "b", absolute=1e-9)


@check("hand_checked_single_newton_step")
def hand_checked_single_newton_step(out, ref):
    # from w = b = 0: p = 1/2, gradient (w, b) = ((1)(1/2 - 1) + (-1)(1/2 - 0)) / 2, 0 = (-1/2, 0);
    # Hessian = [[(1 + 1) / 4 / 2 + l2, 0], [0, 2 / 4 / 2]] = [[1/4 + l2, 0], [0, 1/4]].
    # With l2 = 1/4 one Newton step gives w = (1/2) / (1/2) = 1, b = 0.
    w, b = fitted(out, "tol_default")
    approx(float(w[0]), 1.0, "w", absolute=1e-12)
    approx(b, 0.0, "b", absolute=1e-12)
    # the stopping test is |g| < tol, strict: the initial gradient 1/2 is not below tol = 1/2 ...
    w, _ = fitted(out, "tol_0.5")
    approx(float(w[0]), 1.0, "w with tol 0.5", absolute=1e-12)
    # ... but it is below 0.6, so no step is taken
    w, b = fitted(out, "tol_0.6")
    expect(float(w[0]) == 0.0 and b == 0.0, f"with tol 0.6 no step is taken: got w={w}, b={b}")


@check("hand_checked_unpenalised_intercept")
def hand_checked_unpenalised_intercept(out, ref):
    # all-zero features: w only pays the penalty, so w = 0, and the intercept matches the base rate:
    # sigmoid(b) = 3/4, i.e. b = log(3) = 1.0986122886681098
    w, b = fitted(out)
    close(w, np.zeros(2), atol=1e-12, rtol=0, what="w")
    approx(b, 1.0986122886681098, "b", absolute=1e-9)


# ---------------------------------------------------------------- fit_logistic_regression: differential and properties


@check("fit_matches_reference*")
def fit_matches_reference(out, ref):
    w, b = fitted(out)
    approx(b, ref["b"], "b", absolute=1e-8, rel=1e-8)


def _objective_gradient(X, y, w, b, l2):
    """Gradient of J(w, b) = mean_i [log(1 + e^z_i) - y_i z_i] + l2/2 ||w||^2 (intercept unpenalised)."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    z = X @ w + b
    residual = 1.0 / (1.0 + np.exp(-z)) - y
    return np.concatenate([X.T @ residual / len(y) + l2 * w, [residual.mean()]])


@check("fit_reaches_stationary_point*")
def fit_reaches_stationary_point(out, ref):
    w, b = fitted(out)
    grad = _objective_gradient(ref["X"], ref["y"], np.asarray(w, dtype=np.float64), b, ref["l2"])
    expect(np.abs(grad).max() < 1e-8, f"objective gradient at the fit is {np.abs(grad).max():.3g}, not < 1e-8")


@check("fit_uses_the_mean_loss")
def fit_uses_the_mean_loss(out, ref):
    w1, b1 = fitted(out, "once")
    w2, b2 = fitted(out, "twice")
    close(w2, w1, atol=1e-10, rtol=0, what="w with duplicated examples")
    approx(b2, b1, "b with duplicated examples", absolute=1e-10)


@check("fit_label_flip_symmetry")
def fit_label_flip_symmetry(out, ref):
    w1, b1 = fitted(out, "labels")
    w2, b2 = fitted(out, "flipped")
    close(w2, -w1, atol=1e-9, rtol=0, what="w with flipped labels")
    approx(b2, -b1, "b with flipped labels", absolute=1e-9)


# ---------------------------------------------------------------- probe_layers


@check("probe_matches_reference*")
def probe_matches_reference(out, ref):
    equal(out["is_list"], True, what="returns a list")
    n = len(ref["weight"])  # one probe per layer of the fixture
    equal([out[f"layers.{i}"] for i in range(n)], list(range(n)), what="layer indices")
    equal(out["all_layer_probes"], True, what="every item is a LayerProbe")


@check("probe_result_types")
def probe_result_types(out, ref):
    for i in range(ref["weight_dtypes"][1]):  # a sequence decodes to ("seq", length)
        got = [out[f"types.{i}.{j}"] for j in range(5)]
        equal(got, ["int", "float", "float", "float", "float"], what=f"types of (layer, accuracy, f1, auc, bias) {i}")
        equal(out[f"weight_dtypes.{i}"], "torch.float64", what=f"weight dtype {i}")


@check("probe_finds_planted_concept_depth*")
def planted_depth(out, ref):
    depth, acc, auc = ref["depth"], out["accuracy"], out["auc"]
    first = next((layer for layer, a in enumerate(acc) if a >= 0.85), None)  # analysis.concept_depth(acc, 0.85)
    equal(first, depth, what="concept depth (first layer with accuracy >= 0.85)")
    expect(bool(np.all(acc[:depth] < 0.8)), f"accuracy before the planted layer not below 0.8: {acc[:depth]}")
    expect(bool(np.all(acc[depth:] >= 0.85)), f"accuracy from the planted layer on below 0.85: {acc[depth:]}")
    expect(bool(np.all(auc[depth:] > 0.9)), f"AUC from the planted layer on not above 0.9: {auc[depth:]}")


@check("probe_is_invariant_to_feature_affine_maps")
def affine_invariance(out, ref):
    close(out["mapped.weight"], out["plain.weight"], atol=1e-8, rtol=1e-8, what="weights")
    equal(out["plain.accuracy"], out["mapped.accuracy"], what="accuracies")
    equal(out["plain.auc"], out["mapped.auc"], what="AUCs")


@check("probe_uses_one_split_for_all_layers")
def one_split(out, ref):
    for layer in (1, 2):
        for name in ("accuracy", "f1", "auc", "bias"):
            equal(out[name][layer], out[name][0], what=f"{name} of identical layer {layer}")
        equal(out["weight"][layer], out["weight"][0], what=f"weight of identical layer {layer}")


@check("hand_checked_probe_without_signal")
def probe_without_signal(out, ref):
    # every feature constant: standardised features are all 0 (std 0 is replaced by 1), so w = 0; each class has
    # 10 examples, so round(0.2 * 10) = 2 per class go to the test split and the training split is balanced:
    # the gradient at zero vanishes and b = 0 exactly. Every test decision value is then exactly 0, which is not
    # > 0: all four test examples are predicted 0 -> accuracy 2/4 = 0.5, F1 = 0 (no true positive), AUC = 0.5 (all ties).
    got = (out["accuracy"].tolist(), out["f1"].tolist(), out["auc"].tolist(), out["bias"].tolist())
    equal(got, ([0.5], [0.0], [0.5], [0.0]), what="(accuracy, f1, auc, bias)")
    equal(out["weight"], np.zeros((1, 3)), what="weight")


@check("probe_accepts_bool_and_float_labels")
def bool_and_float_labels(out, ref):
    for labels in ("bool", "float"):
        for name in ("accuracy", "f1", "auc"):
            equal(out[f"{labels}.{name}"], out[f"int.{name}"], what=f"{name} with {labels} labels")
        close(out[f"{labels}.weight"], out["int.weight"], atol=1e-12, rtol=0, what=f"weights with {labels} labels")


@check("probe_handles_constant_features")
def constant_features(out, ref):
    layers = [k for k in ref if k.startswith("weights.") and "#" not in k]
    expect(len(layers) > 0, "no layers")
    for key in layers:
        finite(out[key], key)
        expect(abs(float(out[key][0])) < 1e-12, f"{key}: weight of the constant feature is {out[key][0]!r}")
