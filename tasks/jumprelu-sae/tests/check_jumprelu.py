"""Trusted checks for jumprelu-sae/1 (never enter the sandbox): the equations of paper.md recomputed in numpy
from each case's inputs, hand-checked values, and the properties of the training step and run. The default
comparison with the reference's outputs has already passed. A case's inputs are read from `ref`."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-10, atol=1e-12)
F32 = dict(rtol=1e-4, atol=1e-4)  # float32 outputs against float64 numpy
PARAMS = ("W_enc", "b_enc", "W_dec", "b_dec", "log_threshold")


def prefix(out: dict) -> str:
    return "f32." if any(k.startswith("f32.") for k in out) else ""


def tol_for(out: dict) -> dict:
    return F32 if prefix(out) else F64


# ---------------------------------------------------------------- JumpReLU and Step (Eqs. (4), (8)-(11))


def window(z: np.ndarray, theta: np.ndarray, eps: float) -> np.ndarray:
    """K((z - theta) / eps) for the rectangle kernel of Eq. (11)."""
    return (np.abs((z - theta) / eps) < 0.5).astype(np.float64)


def batch_sum(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1, a.shape[-1]).sum(axis=0)


@check("jumprelu_matches_reference[*]")
def jumprelu_is_eqs_4_and_9(out, ref):
    z, theta, eps, up = ref["z"], ref["threshold"], ref["bandwidth"], ref["upstream"]
    tol = F32 if out["out#dtype"] == "float32" else F64
    on = (z > theta).astype(np.float64)
    close(out["out"], z * on, **tol, what="JumpReLU_theta(z) = z H(z - theta), Eq. (4)")
    close(out["grad_z"], on * up, **tol, what="dJumpReLU/dz = H(z - theta) (Section 4)")
    close(out["grad_threshold"], batch_sum(-(theta / eps) * window(z, theta, eps) * up), **tol,
          what="pseudo-derivative of Eq. (9), summed over the batch dimensions")


@check("step_matches_reference[*]")
def step_is_eqs_8_and_10(out, ref):
    z, theta, eps, up = ref["z"], ref["threshold"], ref["bandwidth"], ref["upstream"]
    tol = F32 if out["out#dtype"] == "float32" else F64
    close(out["out"], (z > theta).astype(np.float64), **tol, what="H(z - theta)")
    close(out["grad_z"], np.zeros_like(z), rtol=0, atol=0, what="dH/dz = 0 (Section 4)")
    close(out["grad_threshold"], batch_sum(-(1.0 / eps) * window(z, theta, eps) * up), **tol,
          what="pseudo-derivative of Eq. (10), summed over the batch dimensions")


@check("activation_hand_values")
def activation_hand_values(out, ref):
    # theta = (0.5, 1.0), eps = 0.2: windows (0.4, 0.6) and (0.9, 1.1).
    # z = [[0.3, 0.95], [0.45, 1.05], [0.55, 1.2], [0.62, 0.89]], upstream [[1, 2], [3, -1], [0.5, 4], [2, 1]].
    # above threshold: (0.55, 0.62) for feature 0, (1.05, 1.2) for feature 1
    close(out["jumprelu"], [[0, 0], [0, 1.05], [0.55, 1.2], [0.62, 0]], **F64, what="JumpReLU values")
    close(out["jumprelu_grad_z"], [[0, 0], [0, -1], [0.5, 4], [2, 0]], **F64, what="H(z - theta) * upstream")
    # in the window: 0.45, 0.55 (upstream 3 + 0.5) and 0.95, 1.05 (upstream 2 - 1):
    # -(0.5 / 0.2) * 3.5 = -8.75 and -(1.0 / 0.2) * 1 = -5
    close(out["jumprelu_grad_threshold"], [-8.75, -5.0], **F64, what="Eq. (9) by hand")
    close(out["step"], [[0, 0], [0, 1], [1, 1], [1, 0]], **F64, what="H values")
    close(out["step_grad_z"], np.zeros((4, 2)), rtol=0, atol=0, what="no gradient to z")
    # -(1 / 0.2) * 3.5 = -17.5 and -(1 / 0.2) * 1 = -5
    close(out["step_grad_threshold"], [-17.5, -5.0], **F64, what="Eq. (10) by hand")


# ---------------------------------------------------------------- the SAE (Eqs. (2), (5)-(8), (13))


@dataclass
class Sae:
    """Everything the equations give for one case's parameters and batch, in float64."""

    pre: np.ndarray
    features: np.ndarray
    reconstruction: np.ndarray
    theta: np.ndarray
    recon: float
    l0: float
    grads: dict


def sae_np(ref: dict) -> Sae:
    x, lam, eps = ref["x"], ref["lam"], ref["eps"]
    w_enc, b_enc, w_dec, b_dec = (ref[f"param.{k}"] for k in PARAMS[:4])
    theta = np.exp(ref["param.log_threshold"])
    pre = x @ w_enc + b_enc  # Eq. (5)
    on = (pre > theta).astype(np.float64)
    f = pre * on  # Eq. (6)
    xhat = f @ w_dec + b_dec  # Eq. (2), row i of W_dec is d_i
    r = x - xhat
    n = x.shape[0]
    d_xhat = -2.0 * r / n  # batch mean of ||x - xhat||^2
    d_pre = (d_xhat @ w_dec.T) * on  # dJumpReLU/dz = H(z - theta); dH/dz = 0
    importance = 2.0 * theta * (r @ w_dec.T)  # I_i(x_alpha) of Eq. (12)
    d_theta = ((importance - lam) * window(pre, theta, eps)).sum(axis=0) / (n * eps)  # Eq. (13)
    grads = {"W_enc": x.T @ d_pre, "b_enc": d_pre.sum(axis=0), "W_dec": f.T @ d_xhat, "b_dec": d_xhat.sum(axis=0),
             "log_threshold": theta * d_theta}  # theta = exp(t)
    return Sae(pre=pre, features=f, reconstruction=xhat, theta=theta, recon=float((r ** 2).sum(axis=1).mean()),
               l0=float(on.sum(axis=1).mean()), grads=grads)


@check("sae_forward[*]")
def sae_forward_is_eqs_2_5_6(out, ref):
    p, tol = prefix(out), tol_for(out)
    want = sae_np(ref)
    close(out[f"{p}pre_activations"], want.pre, **tol, what="pi(x), Eq. (5)")
    close(out[f"{p}features"], want.features, **tol, what="f(x), Eq. (6)")
    close(out[f"{p}reconstruction"], want.reconstruction, **tol, what="x_hat(f(x)), Eq. (2)")
    close(out[f"{p}threshold"], want.theta, **tol, what="theta = exp(log_threshold)")
    close(out[f"{p}dthreshold_dlog"], want.theta, **tol, what="d theta / d log_threshold = theta")
    close(out[f"{p}encode.0"], want.pre, **tol, what="encode: pre-activations")
    close(out[f"{p}encode.1"], want.features, **tol, what="encode: features")
    close(out[f"{p}decode"], want.reconstruction, **tol, what="decode")
    rows = out[f"{p}batched.features"].shape[0] * out[f"{p}batched.features"].shape[1]
    close(out[f"{p}batched.features"].reshape(rows, -1), want.features[:rows], **tol, what="(..., d_model) input")
    close(out[f"{p}batched.reconstruction"].reshape(rows, -1), want.reconstruction[:rows], **tol,
          what="(..., d_model) input")


def loss_terms_are_eq7(out: dict, ref: dict, key: str = "") -> Sae:
    p, tol = prefix(out), tol_for(out)
    want = sae_np(ref)
    lam = ref["lam"]
    close(out[f"{p}{key}reconstruction"], want.recon, **tol, what="batch mean of ||x - x_hat||^2")
    close(out[f"{p}{key}l0"], want.l0, **tol, what="batch mean of ||f(x)||_0, Eq. (8)")
    close(out[f"{p}{key}sparsity"], lam * want.l0, **tol, what="lambda ||f(x)||_0")
    close(out[f"{p}{key}total"], want.recon + lam * want.l0, **tol, what="Eq. (7), batch mean")
    return want


@check("sae_loss[*]")
def sae_loss_and_gradients(out, ref):
    p, tol = prefix(out), tol_for(out)
    want = loss_terms_are_eq7(out, ref)
    for name in PARAMS:
        close(out[f"{p}grad.{name}"], want.grads[name], **tol,
              what=f"gradient of the batch loss w.r.t. {name} (chain rule with Eqs. (9), (10); Eq. (13) for theta)")


@check("sae_hand_values")
def sae_hand_values(out, ref):
    # W_enc = W_dec = I, b = 0, theta = 0.5, eps = 0.4 (window (0.3, 0.7)), lambda = 0.1, x = [[1, .6], [.4, .2]].
    # active: row 0 both, row 1 none -> f = [[1, .6], [0, 0]], residual r = [[0, 0], [.4, .2]]
    # reconstruction = (0 + 0.2) / 2 = 0.1; L0 = (2 + 0) / 2 = 1; total = 0.1 + 0.1 * 1 = 0.2
    close(out["reconstruction"], 0.1, **F64, what="reconstruction")
    close(out["l0"], 1.0, **F64, what="L0")
    close(out["sparsity"], 0.1, **F64, what="lambda L0")
    close(out["total"], 0.2, **F64, what="total")
    # dL/dx_hat = -r: b_dec gets (-0.4, -0.2); W_dec gets f^T (-r) = 0; no active feature has a residual -> 0
    close(out["grad.b_dec"], [-0.4, -0.2], **F64, what="b_dec gradient")
    close(out["grad.W_dec"], np.zeros((2, 2)), **F64, what="W_dec gradient")
    close(out["grad.W_enc"], np.zeros((2, 2)), **F64, what="W_enc gradient")
    close(out["grad.b_enc"], [0.0, 0.0], **F64, what="b_enc gradient")
    # in the window: x[1, 0] = 0.4 (I = 2 * 0.5 * 0.4 = 0.4) and x[0, 1] = 0.6 (I = 0):
    # dL/dtheta = ((0.4 - 0.1) / (2 * 0.4), (0 - 0.1) / (2 * 0.4)) = (0.375, -0.125); times theta = 0.5
    close(out["grad.log_threshold"], [0.1875, -0.0625], **F64, what="Eq. (13) by hand, times theta")


# ---------------------------------------------------------------- train_step


@check("train_step_sgd[*]")
def train_step_is_one_update(out, ref):
    p, tol = prefix(out), tol_for(out)
    want = loss_terms_are_eq7(out, ref)  # the terms at the parameters before the update
    equal(out["total_requires_grad"], False, what="returned terms are detached")
    lr = ref["lr"]
    for name in PARAMS:
        old, grad = ref[f"param.{name}"], want.grads[name]
        if name == "W_dec" and ref["unit_norm"]:
            unit = old / np.linalg.norm(old, axis=1, keepdims=True)
            grad = grad - (grad * unit).sum(axis=1, keepdims=True) * unit
            new = old - lr * grad
            new = new / np.linalg.norm(new, axis=1, keepdims=True)
        else:
            new = old - lr * grad
        close(out[f"{p}new.{name}"], new, **tol, what=f"{name} after one SGD step")
    if ref["unit_norm"]:
        close(np.linalg.norm(out[f"{p}new.W_dec"], axis=1), np.ones(ref["param.W_dec"].shape[0]), **tol,
              what="unit-norm decoder rows")


@check("train_step_adam_repeated")
def adam_steps(out, ref):
    close(np.linalg.norm(out["new.W_dec"], axis=1), np.ones(out["new.W_dec"].shape[0]), **F64,
          what="unit-norm decoder rows after 4 steps")
    finite(out["total"], "losses")


# ---------------------------------------------------------------- the training run


def run_properties(out: dict, ref: dict, unit_norm: bool, tol: dict) -> None:
    for key in ("total", "reconstruction", "l0", "sparsity"):
        finite(out[key], key)
    lam = np.asarray(ref["lam"], dtype=np.float64)
    close(lam, 0.05 * np.minimum(1.0, np.arange(len(lam)) / 3), **F64, what="trainer's warm-up (repository code)")
    close(out["sparsity"], lam * out["l0"], **tol, what="sparsity = lambda * L0")
    close(out["total"], out["reconstruction"] + out["sparsity"], **tol, what="total = reconstruction + sparsity")
    expect(bool((out["l0"] >= 0).all() and (out["l0"] <= 24).all()), "L0 outside [0, d_sae]")
    if unit_norm:
        close(np.linalg.norm(out["final.W_dec"], axis=1), np.ones(24), **tol, what="unit-norm decoder rows")


@check("trainer_float64[*]")
def trainer_float64(out, ref):
    run_properties(out, ref, ref["unit_norm"], F64)


@check("trainer_float32[*]")
def trainer_float32(out, ref):
    run_properties(out, ref, ref["unit_norm"], F32)
    # the first step sees the initial parameters and the first batch: no earlier update can drift
    for key in ("total", "reconstruction", "l0"):
        close(out[key][0], ref[key][0], **F32, what=f"{key} of the first step")
