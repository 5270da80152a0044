"""Trusted checks for matryoshka-sae/1 (never enter the sandbox): the equations of paper.md recomputed in numpy from
each case's inputs (read from `ref`), hand-checked values, and the properties of the training step and run. The
default comparison with the reference's outputs has already passed."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-10, atol=1e-12)
F32 = dict(rtol=1e-4, atol=1e-4)  # float32 outputs against float64 numpy
PARAMS = ("W_enc", "b_enc", "W_dec", "b_dec")


def prefix(out: dict) -> str:
    return "f32." if any(k.startswith("f32.") or ".f32." in k for k in out) else ""


def tol_for(out: dict) -> dict:
    return F32 if prefix(out) else F64


def items(out: dict, key: str) -> list:
    """A list output, flattened by the harness to key.0, key.1, ..."""
    found = []
    while f"{key}.{len(found)}" in out:
        found.append(out[f"{key}.{len(found)}"])
    return found


# ---------------------------------------------------------------- BatchTopK (Eq. (7))


def batch_topk_mask(z: np.ndarray, k: int) -> np.ndarray:
    """Where BatchTopK_k(ReLU(z)) is non-zero: the n k largest entries of the batch, if positive."""
    relu = np.maximum(z, 0.0)
    n_keep = k * z.shape[0]
    if n_keep >= z.size:
        return relu > 0
    cut = np.sort(relu.reshape(-1))[::-1][n_keep - 1]
    return (relu >= cut) & (relu > 0)


@check("batch_topk_matches_reference[*]")
def batch_topk_is_eq_7(out, ref):
    z, k, up = ref["z"], ref["k"], ref["upstream"]
    p = prefix(out)
    tol = F32 if p else F64
    keep = batch_topk_mask(z, k)
    close(out[f"{p}acts"], np.where(keep, z, 0.0), **tol, what="BatchTopK_k(ReLU(Z)), Eq. (7)")
    close(out[f"{p}grad"], np.where(keep, up, 0.0), **tol, what="gradient reaches the kept entries only")
    expect(int((out[f"{p}acts"] != 0).sum()) <= k * z.shape[0], "at most n k active entries in the batch")


@check("batch_topk_hand_values")
def batch_topk_hand_values(out, ref):
    # z = [[0.9, -0.2, 0.4], [0.1, 0.7, -1.0], [0.3, 0.05, 0.6]]; positives sorted: 0.9 0.7 0.6 0.4 0.3 0.1 0.05
    # k = 1 keeps the 3 largest (0.9, 0.7, 0.6): row 0 keeps one, row 1 one, row 2 one
    close(out["k1"], [[0.9, 0, 0], [0, 0.7, 0], [0, 0, 0.6]], **F64, what="k = 1")
    # k = 2 keeps 6: every positive but 0.05
    close(out["k2"], [[0.9, 0, 0.4], [0.1, 0.7, 0], [0.3, 0, 0.6]], **F64, what="k = 2")
    # k = 3 keeps 9 >= 7 positives: ReLU(z)
    close(out["k3"], [[0.9, 0, 0.4], [0.1, 0.7, 0], [0.3, 0.05, 0.6]], **F64, what="k = 3")


# ---------------------------------------------------------------- the SAE (Eqs. (1), (2), (5)-(7), (11), (12))


@dataclass
class Sae:
    """Everything the equations give for one case's parameters and batch, in float64."""

    pre: np.ndarray
    features: np.ndarray
    reconstructions: list[np.ndarray]
    errors: np.ndarray
    aux: float
    total: float
    grads: dict = field(default_factory=dict)


def widths(ref: dict) -> list[int]:
    return [int(w) for w in accumulate(ref["group_sizes"])]


def dead_of(ref: dict) -> np.ndarray:
    return ref["counters"] >= ref["dead_after"]


def topk_rows_mask(values: np.ndarray, k: int) -> np.ndarray:
    if values.shape[1] <= k:
        return np.ones_like(values, dtype=bool)
    cut = -np.sort(-values, axis=1)[:, k - 1: k]
    return values >= cut


def sae_np(ref: dict, x: np.ndarray | None = None) -> Sae:
    """Forward pass, Matryoshka loss and its gradients (training mode), from the case's inputs."""
    x = ref["x"] if x is None else x
    w_enc, b_enc, w_dec, b_dec = (ref[f"param.{k}"] for k in PARAMS)
    n = x.shape[0]
    xc = x - b_dec
    pre = xc @ w_enc + b_enc  # Eq. (4)'s z(x)
    keep = batch_topk_mask(pre, ref["k"])
    f = np.where(keep, pre, 0.0)  # Eq. (7)
    recs = [f[:, :w] @ w_dec[:w] + b_dec for w in widths(ref)]  # Eq. (11)
    errors = np.array([((x - r) ** 2).sum(axis=1).mean() for r in recs])
    g = {"W_enc": np.zeros_like(w_enc), "b_enc": np.zeros_like(b_enc), "W_dec": np.zeros_like(w_dec),
         "b_dec": np.zeros_like(b_dec)}
    d_f = np.zeros_like(f)
    for w, r in zip(widths(ref), recs, strict=True):
        d_rec = -2.0 * (x - r) / n
        g["W_dec"][:w] += f[:, :w].T @ d_rec
        d_f[:, :w] += d_rec @ w_dec[:w].T
        g["b_dec"] += d_rec.sum(axis=0)
    d_pre = d_f * keep
    aux = 0.0
    dead = dead_of(ref)
    if dead.any():
        e = x - recs[-1]  # residual of the full dictionary, a constant target (Section 2.2)
        zd = np.maximum(pre[:, dead], 0.0)
        aux_keep = topk_rows_mask(zd, ref["aux_k"]) & (zd > 0)
        a = np.where(aux_keep, zd, 0.0)
        e_hat = a @ w_dec[dead]  # Eq. (5), no decoder bias
        aux = float(((e - e_hat) ** 2).sum(axis=1).mean())  # Eq. (6)
        d_ehat = -2.0 * ref["alpha"] * (e - e_hat) / n
        g["W_dec"][dead] += a.T @ d_ehat
        d_pre[:, dead] += (d_ehat @ w_dec[dead].T) * aux_keep
    g["W_enc"] = xc.T @ d_pre
    g["b_enc"] = d_pre.sum(axis=0)
    g["b_dec"] -= (d_pre @ w_enc.T).sum(axis=0)  # z depends on x - b_dec
    total = float(errors.sum()) + ref["alpha"] * aux  # Eq. (12)
    return Sae(pre=pre, features=f, reconstructions=recs, errors=errors, aux=aux, total=total, grads=g)


def unchanged_buffers(out: dict, ref: dict, p: str) -> None:
    close(out[f"{p}buf.threshold"], ref["threshold"], rtol=1e-6, atol=0, what="threshold unchanged")
    equal(out["buf.threshold_batches"], ref["threshold_batches"], what="threshold_batches unchanged")
    equal(out["buf.batches_since_fired"], ref["counters"], what="batches_since_fired unchanged")


@check("sae_forward[*]")
def sae_forward_is_eqs_1_7_11(out, ref):
    p, tol = prefix(out), tol_for(out)
    want = sae_np(ref)
    close(out[f"{p}pre_acts"], want.pre, **tol, what="z(x) = W_enc (x - b_dec) + b_enc")
    close(out[f"{p}features"], want.features, **tol, what="BatchTopK features, Eq. (7)")
    recs = items(out, f"{p}reconstructions")
    equal(len(recs), len(ref["group_sizes"]), what="one reconstruction per nested dictionary")
    for got, rec in zip(recs, want.reconstructions, strict=True):
        close(got, rec, **tol, what="nested reconstruction, Eq. (11)")
    enc = items(out, f"{p}encode")
    close(enc[0], want.pre, **tol, what="encode pre-activations")
    close(enc[1], want.features, **tol, what="encode features")
    w_dec, b_dec = ref["param.W_dec"], ref["param.b_dec"]
    d_sae = w_dec.shape[0]
    for got, w in zip(items(out, f"{p}decode"), [1, int(ref["group_sizes"][0]), d_sae - 1, d_sae], strict=True):
        close(got, want.features[:, :w] @ w_dec[:w] + b_dec, **tol, what=f"decode with width {w}")
    unchanged_buffers(out, ref, p)


@check("sae_eval_mode[*]")
def sae_eval_mode_is_eq_8(out, ref):
    p, tol = prefix(out), tol_for(out)
    x, theta = ref["x"], ref["threshold"]
    w_enc, b_enc, w_dec, b_dec = (ref[f"param.{k}"] for k in PARAMS)
    pre = (x - b_dec) @ w_enc + b_enc
    f = np.where(pre > theta, pre, 0.0)  # Eq. (8)
    close(out[f"{p}pre_acts"], pre, **tol, what="pre-activations")
    close(out[f"{p}features"], f, **tol, what="z 1[z > theta], Eq. (8)")
    for got, w in zip(items(out, f"{p}reconstructions"), widths(ref), strict=True):
        close(got, f[:, :w] @ w_dec[:w] + b_dec, **tol, what="nested reconstruction with the threshold")
    close(out[f"{p}batched.features"], np.broadcast_to(f, (2, 1, *f.shape)), **tol,
          what="eval mode works token by token on any leading shape")
    close(out[f"{p}batched.last"], np.broadcast_to(f @ w_dec + b_dec, (2, 1, *x.shape)), **tol,
          what="full reconstruction, any leading shape")
    unchanged_buffers(out, ref, p)


@check("sae_loss[*]")
def sae_loss_is_eq_12(out, ref):
    p, tol = prefix(out), tol_for(out)
    want = sae_np(ref)
    close(out[f"{p}prefix_errors"], want.errors, **tol, what="||x - x_hat_m||^2 per nested size, batch mean")
    close(out[f"{p}reconstruction"], want.errors.sum(), **tol, what="sum over the nested sizes, Eq. (12)")
    close(out[f"{p}aux"], want.aux, **tol, what="L_aux of Eqs. (5)-(6) on the full dictionary's residual")
    close(out[f"{p}total"], want.total, **tol, what="Eq. (12)")
    close(out[f"{p}features"], want.features, **tol, what="the batch's features")
    expect(not out["features_requires_grad"], "LossTerms.features is detached")
    for k in PARAMS:
        close(out[f"{p}grad.{k}"], want.grads[k], **tol, what=f"d loss / d {k}")
    unchanged_buffers(out, ref, p)


@check("sae_hand_values")
def sae_hand_values(out, ref):
    # z = x W_dec^T: x1 = (1, 0.25) -> (1, 0.25, 0.8); x2 = (0.2, 0.3) -> (0.2, 0.3, 0.36).
    # BatchTopK with k = 1 keeps the 2 largest of the batch: 1 and 0.8, both of x1; x2 gets no latent.
    close(out["alive.features"], [[1.0, 0, 0.8], [0, 0, 0]], **F64, what="batch selection by hand")
    # width 1: x1 -> (1, 0), error |(0, 0.25)|^2 = 0.0625; x2 -> 0, error 0.04 + 0.09 = 0.13; mean 0.09625
    # width 3: x1 -> (1, 0) + 0.8 (0.6, 0.8) = (1.48, 0.64), error 0.48^2 + 0.39^2 = 0.3825; x2 0.13; mean 0.25625
    close(out["alive.prefix_errors"], [0.09625, 0.25625], **F64, what="nested errors by hand")
    close(out["alive.total"], 0.3525, **F64, what="sum of nested errors, no dead latent")
    # latent 2 dead: e_hat = relu(z_2) d_2 = 0.8 (0.6, 0.8) = (0.48, 0.64) and 0.36 (0.6, 0.8) = (0.216, 0.288);
    # e = (-0.48, -0.39) and (0.2, 0.3); e - e_hat = (-0.96, -1.03), (-0.016, 0.012);
    # L_aux = (0.9216 + 1.0609 + 0.000256 + 0.000144) / 2 = 0.99145; total = 0.3525 + 0.99145 / 32
    close(out["dead.aux"], 0.99145, **F64, what="L_aux by hand")
    close(out["dead.total"], 0.3525 + 0.99145 / 32, **F64, what="total with the auxiliary loss")
    # statistics: smallest kept activation 0.8, first batch -> theta = 0.8; latent 1 did not fire
    close(out["threshold"], 0.8, **F64, what="theta after one batch, Eq. (9)")
    equal(out["counters"], [0, 1, 0], what="batches since fired")
    # eval on (0.5, 1.0): z = (0.5, 1.0, 1.1) > 0.8 -> (0, 1.0, 1.1)
    close(out["eval.features"], [[0, 1.0, 1.1]], **F64, what="Eq. (8) with theta = 0.8")


# ---------------------------------------------------------------- statistics (Eq. (9), dead latents)


def statistics(features: np.ndarray, threshold: float, count: int, counters: np.ndarray) -> tuple:
    fired = (features > 0).any(axis=0)
    counters = np.where(fired, 0, counters + 1)
    positive = features[features > 0]
    if positive.size:
        count += 1
        threshold += (positive.min() - threshold) / count  # running mean of Eq. (9)
    return threshold, count, counters


@check("update_statistics[*]")
def update_statistics_is_eq_9(out, ref):
    p = prefix(out)
    features = ref[f"{p}features"]
    state = (ref["threshold"], ref["threshold_batches"], ref["counters"])
    for name, batch in (("first", features), ("second", features[: max(1, features.shape[0] // 2)])):
        state = statistics(batch, *state)
        close(out[f"{name}.{p}buf.threshold"], state[0], rtol=1e-6, atol=1e-7, what=f"{name}: theta")
        equal(out[f"{name}.buf.threshold_batches"], state[1], what=f"{name}: batches in the mean")
        equal(out[f"{name}.buf.batches_since_fired"], state[2], what=f"{name}: batches since fired")


# ---------------------------------------------------------------- train_step (Section 4)


def sgd_step(ref: dict, want: Sae, lr: float) -> dict:
    new = {k: ref[f"param.{k}"] - lr * want.grads[k] for k in ("W_enc", "b_enc", "b_dec")}
    w = ref["param.W_dec"]
    unit = w / np.linalg.norm(w, axis=1, keepdims=True)
    g = want.grads["W_dec"]
    g = g - (g * unit).sum(axis=1, keepdims=True) * unit  # gradient projected off each row
    w_new = w - lr * g
    new["W_dec"] = w_new / np.linalg.norm(w_new, axis=1, keepdims=True)  # renormalised after the step
    return new


@check("train_step_sgd[*]")
def train_step_is_one_update(out, ref):
    p, tol = prefix(out), tol_for(out)
    want = sae_np(ref)  # the batch's real tokens are ref["x"]
    close(out[f"{p}total"], want.total, **tol, what="loss before the update")
    close(out[f"{p}prefix_errors"], want.errors, **tol, what="nested errors before the update")
    close(out[f"{p}aux"], want.aux, **tol, what="L_aux before the update")
    expect(not out["total_requires_grad"], "returned terms are detached")
    new = sgd_step(ref, want, ref["lr"])
    for k in PARAMS:
        close(out[f"{p}new.{k}"], new[k], **tol, what=f"{k} after one SGD step")
    close(np.linalg.norm(out[f"{p}new.W_dec"], axis=1), 1.0, **tol, what="unit decoder rows")
    theta, count, counters = statistics(want.features, ref["threshold"], ref["threshold_batches"], ref["counters"])
    close(out[f"{p}buf.threshold"], theta, rtol=1e-6, atol=1e-7, what="theta updated from the batch")
    equal(out["buf.threshold_batches"], count, what="one more batch in the mean")
    equal(out["buf.batches_since_fired"], counters, what="counters updated from the batch")


@check("train_step_adam_repeated")
def adam_steps(out, ref):
    finite(out["total"], "losses")
    close(np.linalg.norm(out["new.W_dec"], axis=1), 1.0, **F64, what="unit decoder rows after Adam")
    expect(out["total"][2] < out["total"][0], "three Adam steps on one batch lower its loss")
    equal(out["buf.threshold_batches"], ref["buf.threshold_batches"], what="three batches counted")


# ---------------------------------------------------------------- the training run


def run_properties(out: dict, tol: dict) -> None:
    finite(out["total"], "losses")
    close(out["reconstruction"], out["prefix_errors"].sum(axis=1), **tol, what="reconstruction = sum of nested")
    close(out["total"], out["reconstruction"] + out["aux"] / 32.0, **tol, what="total = recon + alpha aux")
    close(np.linalg.norm(out["final.W_dec"], axis=1), 1.0, **tol, what="unit decoder rows")
    expect(out["aux"][0] == 0, "no latent is dead at the first step")
    expect(bool((out["aux"] > 0).any()), "dead latents appear during the run (dead_after_batches = 2)")
    equal(out["buf.threshold_batches"], 8, what="every batch counted in the threshold")


@check("trainer_float64")
def trainer_float64(out, ref):
    run_properties(out, F64)


@check("trainer_float32")
def trainer_float32(out, ref):
    run_properties(out, F32)
    close(out["total"][0], ref["total"][0], rtol=1e-4, atol=1e-5, what="first step (initial parameters)")
    close(out["prefix_errors"][0], ref["prefix_errors"][0], rtol=1e-4, atol=1e-5, what="first step's nested errors")
