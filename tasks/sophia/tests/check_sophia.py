"""Trusted checks for sophia/1 (never enter the sandbox): the trajectories' optimizer state, the hand-computed steps
and the properties of SophiaG, on the outputs probe_sophia.py emitted. Random gradients are read from the reference's
run (`ref`).

`tclose` is the old tests' `close` (torch.testing.assert_close, rtol = atol = 1e-12 unless given): same dtype (the
reference's, float64 here) and shape, |got - want| <= atol + rtol * |want|, NaN never matching."""

from __future__ import annotations

import re

import numpy as np

from lmrbench.checks import check, equal, expect

TOL = 1e-12


def tclose(out, key: str, want, rtol: float = TOL, atol: float = TOL, dtype: str = "float64", what: str = "") -> None:
    what = what or key
    got = out.get(key)
    expect(isinstance(got, np.ndarray) and f"{key}#dtype" in out, f"{what}: not a tensor")
    equal(out[f"{key}#dtype"], dtype, what=f"{what} dtype")
    w = np.asarray(want, dtype=np.float64)
    equal(list(got.shape), list(w.shape), what=f"{what} shape")
    g = got.astype(np.float64)
    ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=False)
    if not bool(ok.all()):
        at = tuple(int(i) for i in np.argwhere(~ok)[0])
        expect(False, f"{what}: {int((~ok).sum())} mismatched values, e.g. at {list(at)}: got {g[at]!r}, want {w[at]!r}")


def identical(out, key: str, want, what: str = "") -> None:
    """torch.equal: same shape and exactly the same values."""
    got = out.get(key)
    expect(isinstance(got, np.ndarray), f"{what or key}: not a tensor")
    w = np.asarray(want)
    expect(got.shape == w.shape and bool(np.array_equal(got, w)), f"{what or key}: not exactly equal")


# ---------------------------------------------------------------- trajectories: the optimizer state


STATE_KEY = re.compile(r"e(\d+)\.state(\d+)\.(exp_avg|hessian)")


@check("trajectory_matches_reference?*")
def trajectory_state(out, ref):
    # The parameters and which state entries exist were compared with the reference's (default comparison). The
    # state itself: shape of the parameter, values within rtol = tol, atol = tol * max(1, max |reference|).
    dtype = ref["e0.p0#dtype"]
    tol = 1e-6 if dtype == "float32" else 1e-12
    for key, want in ref.items():
        match = STATE_KEY.fullmatch(key)
        if match is None:
            continue
        n, i, name = match.groups()
        where = f"event {n}, param {i}, {name}"
        equal(list(np.shape(out.get(key))), list(np.shape(ref[f"e{n}.p{i}"])), what=f"{where} shape")
        scale = max(1.0, float(np.abs(want).max()))
        tclose(out, key, want, rtol=tol, atol=tol * scale, dtype=ref[f"{key}#dtype"], what=where)


# ---------------------------------------------------------------- values computed by hand


@check("hand_computed_steps")
def hand_computed_steps(out, ref):
    # lr = 0.1, betas = (0.5, 0.8), rho = 0.5, weight_decay = 0.2, eps = 1e-12, theta_0 = 1.
    # step g=2:     m = 0.5*2 = 1; h = 0 -> denominator eps -> clip(+huge) = 1; theta = 1*0.98 - 0.1 = 0.88.
    # hessian g^=1.5, B=4: h_hat = 4*2.25 = 9;  h = 0.2*9 = 1.8.
    # step g=-0.6:  m = 0.5 - 0.3 = 0.2; max(0.5*1.8, eps) = 0.9; ratio 0.2/0.9 (not clipped);
    #               theta = 0.88*0.98 - 0.1*0.2/0.9 = 0.8624 - 0.0222222... = 0.8401777777...
    # step g=-3:    m = 0.1 - 1.5 = -1.4; ratio -1.4/0.9 -> clipped to -1; theta = 0.84017777...*0.98 + 0.1
    #               = 0.9233742222...
    tclose(out, "p1", [0.88], rtol=0, atol=1e-14)
    tclose(out, "h_after_update", [1.8], rtol=0, atol=1e-14)
    tclose(out, "p_after_update", [0.88], rtol=0, atol=1e-14)
    tclose(out, "m2", [0.2], rtol=0, atol=1e-14)
    tclose(out, "p2", [0.84017777777777778], rtol=0, atol=1e-14)
    tclose(out, "m3", [-1.4], rtol=0, atol=1e-14)
    tclose(out, "p3", [0.92337422222222222], rtol=0, atol=1e-14)
    identical(out, "h_final", out.get("h_after_update"), "step never touches h")


# ---------------------------------------------------------------- properties


@check("without_curvature_the_update_is_sign_momentum")
def sign_momentum(out, ref):
    # h = 0 (no Hessian estimate yet): max(rho*h, eps) = eps, every ratio is clipped: -lr * sign(m).
    m = np.zeros_like(ref["g0"])
    for t in range(4):
        m = 0.9 * m + 0.1 * ref[f"g{t}"]
        before = np.asarray(out.get(f"before{t}"), dtype=np.float64)
        tclose(out, f"after{t}", before * (1 - 0.02 * 0.5) - 0.02 * np.sign(m), what=f"step {t}")


@check("large_curvature_gives_the_unclipped_newton_step")
def newton_step(out, ref):
    # With a large h every ratio is inside (-1, 1) and the step is exactly -lr * m / (rho * h).
    tclose(out, "h", 0.3 * 100 * ref["g_hat"] ** 2, what="hessian")
    h = np.asarray(out["h"], dtype=np.float64)
    m = 0.5 * ref["g"]
    expect(bool(np.all(np.abs(m / (0.1 * h)) < 1)), "some ratio m / (rho h) is not inside (-1, 1)")
    before = np.asarray(out.get("before"), dtype=np.float64)
    tclose(out, "after", before - 0.05 * m / (0.1 * h), what="parameters after the step")


@check("each_coordinate_moves_at_most_lr_beyond_the_decay")
def bounded_step(out, ref):
    step = None
    for t in range(8):
        for key in (f"before{t}", f"after{t}"):
            expect(isinstance(out.get(key), np.ndarray) and out[key].shape == (50,), f"{key}: not a (50,) tensor")
        step = out[f"after{t}"] - out[f"before{t}"] * (1 - 0.01 * 0.3)
        expect(float(np.abs(step).max()) <= 0.01 * (1 + 1e-12), f"step {t}: a coordinate moved more than lr")
    # both regimes occurred on this run: some coordinates at the bound, some strictly inside
    biggest = float(np.abs(step).max())
    expect(abs(biggest - 0.01) <= max(1e-12 * 0.01, 1e-12), f"last step: largest move {biggest!r} is not lr")  # approx
    expect(float(np.abs(step).min()) < 0.01 * 0.99, "last step: no coordinate strictly inside the bound")


@check("eps_is_a_floor_not_an_offset")
def eps_floor(out, ref):
    # rho*h above eps: ratio m/(rho*h); below eps: ratio m/eps (max, not rho*h + eps).
    # beta2 = 0: h = 1 * g^2 = [4, 0.01]
    tclose(out, "h", [4.0, 0.01])
    # beta1 = 0: m = g. ratios: 0.4/max(4, 0.1) = 0.1 and 0.05/max(0.01, 0.1) = 0.5
    tclose(out, "p", [-0.1, -0.5], rtol=0, atol=1e-15)


@check("gnb_scaling_and_hessian_moving_average")
def gnb(out, ref):
    h = np.zeros_like(ref["g_hat1"])
    for bs in (1, 7, 32):
        g_hat = ref[f"g_hat{bs}"]
        h = 0.75 * h + 0.25 * bs * g_hat * g_hat
        tclose(out, f"hessian{bs}", h, what=f"hessian after batch size {bs}")
        identical(out, f"after{bs}", out.get(f"before{bs}"), f"batch size {bs}: parameters changed")
        identical(out, f"grad{bs}", g_hat, f"batch size {bs}: gradient changed")
        exp_avg = out.get(f"exp_avg{bs}")
        expect(isinstance(exp_avg, np.ndarray) and np.count_nonzero(exp_avg) == 0,
               f"batch size {bs}: exp_avg is not zero")


@check("invariant_to_loss_scale_with_rescaled_rho_and_eps")
def loss_scale(out, ref):
    # g -> s g and g_hat -> s g_hat give m -> s m and h -> s^2 h; with rho -> rho/s and eps -> s eps the
    # updates are unchanged (s = 4 keeps the arithmetic exact).
    equal(out.get("s4#dtype"), out.get("s1#dtype"), what="dtype")
    tclose(out, "s4", out.get("s1"), rtol=1e-14, atol=1e-15, dtype=str(out.get("s1#dtype")), what="s = 4 vs s = 1")


@check("parameters_without_gradient_are_untouched")
def untouched(out, ref):
    identical(out, "b", np.ones(2), "parameter without gradient")
    equal(out.get("b_state_entries"), 0, what="state entries of the parameter without gradient")
