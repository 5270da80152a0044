"""Trusted checks for muon/1 (never enter the sandbox): hand-checked values and the properties the method
description states, on the outputs probe_muon.py emitted. The default comparison with the reference's outputs
has already passed. Parameters of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

A, B, C = 3.4445, -4.7750, 2.0315  # Eq. (2)
F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=1e-4, atol=2e-5)


def newton_schulz(g: np.ndarray, steps: int, eps: float) -> np.ndarray:
    """Eq. (2) written literally: X X^T on the matrix as given (no transposition), per trailing matrix."""
    norm = np.sqrt((g * g).sum(axis=(-2, -1), keepdims=True))
    x = g / (norm + eps)
    for _ in range(steps):
        gram = x @ np.swapaxes(x, -1, -2)
        x = A * x + B * gram @ x + C * gram @ gram @ x
    return x


def poly(x: float, steps: int) -> float:
    """What Eq. (2) does to one singular value x of X_0."""
    for _ in range(steps):
        x = A * x + B * x**3 + C * x**5
    return x


def key_of(out: dict, name: str) -> str:
    return f"f32.{name}" if f"f32.{name}" in out else name


def tol_of(key: str) -> dict:
    return F32 if key.startswith("f32.") else F64


def listed(out: dict, name: str) -> list:
    items, i = [], 0
    while f"{name}.{i}" in out:
        items.append(out[f"{name}.{i}"])
        i += 1
    return items


# ---------------------------------------------------------------- orthogonalize


@check("ortho_matches_reference[*]")
def ortho_is_eq2(out, ref):
    key = key_of(out, "out")
    got = out[key].astype(np.float64)
    finite(got, "orthogonalised matrix")
    want = newton_schulz(ref["G"], ref["steps"], ref["eps"])
    close(got, want, **tol_of(key), what="Eq. (2)")
    # the iteration keeps the singular vectors: X_N G^T = U f(S) S U^T is symmetric (per matrix)
    sym = got @ np.swapaxes(ref["G"], -1, -2)
    scale = max(1.0, float(np.abs(sym).max()))
    close(sym, np.swapaxes(sym, -1, -2), rtol=0, atol=(1e-3 if key.startswith("f32.") else 1e-9) * scale,
          what="X_N G^T symmetric")


@check("ortho_hand_values")
def ortho_hand_values(out, ref):
    # diag(3, 4): Frobenius norm 5, so X_0 = diag(0.6, 0.8) (eps 1e-7 shifts it by ~1e-8 relative); the
    # iteration acts on each singular value by x -> a x + b x^3 + c x^5, five times
    d = [poly(3 / (5 + 1e-7), 5), poly(4 / (5 + 1e-7), 5)]
    close(out["diag34"], [[d[0], 0.0], [0.0, d[1]]], rtol=1e-10, atol=1e-12, what="diag(3, 4)")
    # one singular value, normalised to exactly 1: one step gives a + b + c = 3.4445 - 4.7750 + 2.0315 = 0.701
    close(out["unit_one_step"], [[0.0, 0.701, 0.0]], rtol=1e-12, atol=1e-14, what="a + b + c")
    # [[1]] with eps = 1: X_0 = 1 / (1 + 1) = 0.5; one step: 3.4445 * 0.5 - 4.7750 * 0.125 + 2.0315 * 0.03125
    # = 1.72225 - 0.596875 + 0.063484375 = 1.188859375
    close(out["eps_one_step"], [[1.188859375]], rtol=1e-12, atol=1e-14, what="eps in the normalisation")
    close(out["zero"], np.zeros((3, 2)), rtol=0, atol=0, what="zero matrix")
    # zero iterations: the normalised input [3, 4] / 5
    close(out["steps0"], [[0.6, 0.8]], rtol=1e-12, atol=1e-14, what="X_0")


@check("ortho_equivariances")
def ortho_equivariances(out, ref):
    # (X X^T) X = X (X^T X): the iteration on G^T is the transpose of the iteration on G
    close(out["transposed"], out["base"].T, **F64, what="transpose")
    # X_0 does not depend on the scale of G when eps = 0
    close(out["scaled"], out["base_eps0"], **F64, what="scale invariance")
    # orthogonal maps on either side commute with the iteration: f(Q1 G Q2) = Q1 f(G) Q2
    close(out["rotated"], out["q1"] @ out["base"] @ out["q2"], **F64, what="Q1 G Q2")
    # each matrix of a batch is normalised by its own norm
    close(out["stacked"], np.stack([out["base"], out["flipped"]]), **F64, what="batch of two")


# ---------------------------------------------------------------- Muon groups


def muon_reference(ref: dict) -> tuple[list, list]:
    """Eqs. (1), (2), (4) with Section 2.1's Nesterov-style momentum, in float64."""
    w, m = ref["w0"].copy(), np.zeros_like(ref["w0"])
    lr, wd, mu = ref["lr"], ref["weight_decay"], ref["momentum"]
    weights, buffers = [], []
    for g in ref["grads"]:
        m = mu * m + g
        o = newton_schulz(mu * m + g if ref["nesterov"] else m, ref["ns_steps"], 1e-7)
        w = w - lr * (ref["rms_scale"] * o * math.sqrt(max(w.shape)) + wd * w)
        weights.append(w)
        buffers.append(m)
    return weights, buffers


@check("muon_steps_match_reference[*]")
def muon_steps_are_eq4(out, ref):
    weights, buffers = muon_reference(ref)
    wk, bk = key_of(out, "weights"), key_of(out, "buffers")
    close(out[bk].astype(np.float64), np.stack(buffers), **tol_of(bk), what="M_t of Eq. (1)")
    close(out[wk].astype(np.float64), np.stack(weights), **tol_of(wk), what="W_t of Eq. (4)")
    equal(out["buffer_dtype"], ref["buffer_dtype"], what="momentum buffer dtype")


@check("muon_hand_values")
def muon_hand_values(out, ref):
    w0 = np.array([[1.0, 2.0], [-1.0, 0.5]])
    # step 1: M_1 = G_1 = diag(3, 4); Nesterov input mu M_1 + G_1 = 1.5 diag(3, 4), Frobenius norm 7.5, so
    # X_0 = diag(0.6, 0.8) up to eps; O_1 = diag(f(0.6), f(0.8)), f = five steps of a x + b x^3 + c x^5.
    # Eq. (4): W_1 = W_0 - 0.1 (0.2 sqrt(2) O_1 + 0.5 W_0)
    o1 = np.diag([poly(4.5 / (7.5 + 1e-7), 5), poly(6.0 / (7.5 + 1e-7), 5)])
    w1 = w0 - 0.1 * (0.2 * math.sqrt(2) * o1 + 0.5 * w0)
    close(out["first_buffer"], np.diag([3.0, 4.0]), rtol=0, atol=0, what="M_1 = G_1")
    close(out["first"], w1, rtol=1e-10, atol=1e-12, what="W_1")
    # step 2: G_2 = diag(0, -2); M_2 = 0.5 diag(3, 4) + G_2 = diag(1.5, 0); Nesterov input 0.5 M_2 + G_2 =
    # diag(0.75, -2): norm sqrt(0.5625 + 4) = 2.136..., the signs carry through the odd polynomial
    m2 = np.diag([1.5, 0.0])
    close(out["second_buffer"], m2, rtol=0, atol=1e-15, what="M_2")
    n = math.sqrt(0.75**2 + 4.0) + 1e-7
    o2 = np.diag([poly(0.75 / n, 5), -poly(2.0 / n, 5)])
    w2 = w1 - 0.1 * (0.2 * math.sqrt(2) * o2 + 0.5 * w1)
    close(out["second"], w2, rtol=1e-10, atol=1e-12, what="W_2")


@check("muon_zero_gradient")
def muon_zero_gradient(out, ref):
    # M_1 = 0, the orthogonalised zero matrix is zero (eps > 0), so only the decay acts: W (1 - 0.1 * 0.2)
    close(out["weights"], 0.98 * np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.0]]), rtol=1e-12, atol=1e-14,
          what="weight decay only")
    close(out["buffer"], np.zeros((2, 3)), rtol=0, atol=0, what="zero momentum")


@check("muon_update_rms")
def muon_update_rms(out, ref):
    # Section 2.2: scaled by 0.2 sqrt(max(A, B)), the update RMS is about 0.2 whatever the shape. Eq. (2)'s
    # coefficients leave the singular values near, not at, 1: measured 0.17 to 0.18 on Gaussian gradients.
    for name, value in out.items():
        if name.startswith("rms_") and "#" not in name:
            expect(0.15 <= float(value) <= 0.22, f"update RMS {float(value):.4f} of {name} is not about 0.2")
    close(out["rms_32x128"], out["rms_128x32"], rtol=0.05, what="RMS depends on max(A, B) only")


# ---------------------------------------------------------------- AdamW groups


@check("adamw_matches_torch[*]")
def adamw_is_torch_adamw(out, ref):
    ours, theirs = listed(out, key_of(out, "ours")), listed(out, key_of(out, "torch"))
    equal(len(ours), len(theirs), what="number of parameters")
    for got, want in zip(ours, theirs):
        close(got, want, **tol_of(key_of(out, "ours")), what="torch.optim.AdamW's update")


# ---------------------------------------------------------------- one optimizer, several groups


@check("mixed_groups")
def mixed_groups(out, ref):
    equal(out["all_have_state"], True, what="every parameter that had a gradient has state")
    # at step 2 (index 1) parameters 1 and 4 had no gradient: unchanged from step 1
    close(out["history.1.1"], out["history.0.1"], rtol=0, atol=0, what="Muon parameter without gradient")
    close(out["history.1.4"], out["history.0.4"], rtol=0, atol=0, what="AdamW parameter without gradient")


@check("none_grad_leaves_parameter_alone")
def none_grad(out, ref):
    close(out["a"], out["a_before"], rtol=0, atol=0, what="Muon parameter without gradient")
    close(out["b"], out["b_before"], rtol=0, atol=0, what="AdamW parameter without gradient")
    equal(out["c_has_state"], True, what="state of the parameter with a gradient")
    equal(out["returned_none"], True, what="step() without closure returns None")


@check("none_grad_leaves_state_alone")
def none_grad_state(out, ref):
    before = sorted(k[len("before."):] for k in out if k.startswith("before.") and "#" not in k)
    after = sorted(k[len("after."):] for k in out if k.startswith("after.") and "#" not in k)
    equal(after, before, what="state entries of parameters without gradient")
    for k in before:
        got, want = out["after." + k], out["before." + k]
        if isinstance(want, tuple) or not isinstance(want, (np.ndarray, int, float)):
            equal(got, want, what=f"state {k} without gradient")  # structure markers, bools, strings
        else:
            close(got, want, rtol=0, atol=0, what=f"state {k} without gradient")


@check("closure_is_evaluated")
def closure(out, ref):
    equal(out["calls"], 3, what="closure called once per step")
    equal(out["grad_enabled"], True, what="closure runs with gradients enabled")
    finite(out["losses"], "losses")


@check("state_dict_resumes")
def state_dict_resumes(out, ref):
    for got, want in zip(listed(out, "resumed"), listed(out, "straight")):
        close(got, want, rtol=1e-12, atol=1e-14, what="3 steps + state_dict round trip + 2 steps = 5 steps")


@check("add_param_group_later")
def add_param_group_later(out, ref):
    equal(listed(out, "errors"), ["ValueError", "ValueError", "ValueError"], what="invalid groups added later")
    equal(out["use_muon"], False, what="use_muon of the added group")
    close(out["weight_decay"], 0.25, rtol=0, what="the group's own weight_decay")
    close(out["lr"], 0.3, rtol=0, what="lr filled from the defaults")
    equal(out["ns_steps"], 4, what="ns_steps filled from the defaults")


@check("defaults")
def defaults(out, ref):
    # the signature of Muon.__init__
    close([out["lr"], out["weight_decay"], out["momentum"], out["rms_scale"], out["eps"]],
          [1e-3, 0.1, 0.95, 0.2, 1e-8], rtol=0, what="default hyper-parameters")
    equal([out["nesterov"], out["ns_steps"]], [True, 5], what="default nesterov and ns_steps")
    close(listed(out, "betas"), [0.9, 0.95], rtol=0, what="default betas")


# ---------------------------------------------------------------- end to end


@check("train_with_muon[*]")
def train_with_muon(out, ref):
    key = key_of(out, "losses")
    losses = out[key]
    finite(losses, "losses")
    finite(out[key_of(out, "params")], "parameters")
    # Muon at lr 2e-2 on the bigram data: the loss goes down over five steps
    expect(losses[-1] < losses[0], f"loss did not decrease: {losses.tolist()}")


@check("train_without_clip_or_nesterov")
def train_plain(out, ref):
    finite(out["losses"], "losses")
    finite(out["params"], "parameters")
