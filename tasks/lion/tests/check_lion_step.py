"""Trusted checks for lion/1 (never enter the sandbox): the moving averages of the fixture trajectories,
hand-checked values and the update rule's properties, on the outputs probe_lion_step.py emitted. The default
comparison with the reference's outputs has already passed."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect


def _trajectory_state(out, ref, rtol: float, atol: float) -> None:
    """Every moving average the reference has: same shape and dtype as its parameter, and within rtol and
    atol * max(1, |reference|_max) of the reference's (large gradients make large averages)."""
    for key, want in ref.items():
        if ".exp_avg" not in key or key.endswith("#dtype"):
            continue
        step, name = key.split(".")
        param = f"{step}.param{name.removeprefix('exp_avg')}"
        got = out[key]
        equal(list(np.shape(got)), list(np.shape(ref[param])), what=f"{key}: shape (the parameter's)")
        equal(out.get(f"{key}#dtype"), ref[f"{param}#dtype"], what=f"{key}: dtype (the parameter's)")
        scale = max(1.0, float(np.abs(want).max()))
        close(got, want, rtol=rtol, atol=atol * scale, what=key)


@check("trajectory_matches_reference[*]")
def trajectory_f64(out, ref):
    _trajectory_state(out, ref, rtol=1e-12, atol=1e-12)


@check("trajectory_matches_reference_f32*")
def trajectory_f32(out, ref):
    _trajectory_state(out, ref, rtol=1e-6, atol=1e-6)


@check("trajectory_matches_reference*")
def step_returns_none(out, ref):
    for key, value in out.items():
        if key.endswith(".returned_none"):
            equal(value, True, what=f"{key}: step() without a closure returns None")


@check("hand_computed_three_steps")
def hand_computed_three_steps(out, ref):
    # lr = 0.1, beta1 = 0.9, beta2 = 0.99, weight_decay = 0.5, theta_0 = 1, m_0 = 0.
    # t=1, g=0.5:  c = 0.1*0.5 = 0.05 > 0;  theta = 1*(1 - 0.05) - 0.1 = 0.85;  m = 0.01*0.5 = 0.005.
    # t=2, g=-0.2: c = 0.9*0.005 - 0.02 = -0.0155 < 0;  theta = 0.85*0.95 + 0.1 = 0.9075;
    #              m = 0.99*0.005 - 0.002 = 0.00295.
    # t=3, g=0.0:  c = 0.9*0.00295 = 0.002655 > 0;  theta = 0.9075*0.95 - 0.1 = 0.762125;  m = 0.0029205.
    expected = [(0.85, 0.005), (0.9075, 0.00295), (0.762125, 0.0029205)]
    for t, (theta, m) in enumerate(expected, 1):
        close(out[f"theta{t}"], [theta], rtol=0, atol=1e-14, what=f"theta_{t}")
        close(out[f"m{t}"], [m], rtol=0, atol=1e-14, what=f"m_{t}")


@check("every_coordinate_moves_by_exactly_lr_without_decay")
def every_coordinate_moves_by_exactly_lr(out, ref):
    # first step: m = 0, so c = (1 - beta1) g and the update is -lr * sign(g)
    for i in range(3):
        want = ref[f"before.{i}"] - 0.125 * np.sign(ref[f"grads.{i}"])
        close(out[f"after.{i}"], want, rtol=0, atol=0, what=f"parameter {i}")


@check("invariant_to_gradient_scale")
def invariant_to_gradient_scale(out, ref):
    # sign(c) does not change when every gradient is multiplied by s > 0 (a power of two keeps it exact).
    for t in range(6):
        for i in range(3):
            equal(out[f"scaled.{t}.{i}"], out[f"unscaled.{t}.{i}"], what=f"step {t}, parameter {i}")


@check("beta1_zero_is_signsgd_with_decoupled_decay")
def beta1_zero_is_signsgd(out, ref):
    prev = ref["start"]
    for t in range(6):
        cur = out[f"history.{t}"]
        close(cur, prev * (1 - 0.02 * 0.5) - 0.02 * np.sign(ref[f"grads.{t}"]), rtol=1e-12, atol=1e-12,
              what=f"step {t}")
        prev = cur


@check("beta1_one_uses_only_the_previous_average")
def beta1_one(out, ref):
    # beta1 = 1: c_t = m_{t-1}. The first step has m_0 = 0, so nothing moves; the second moves by -lr*sign(g_1).
    start = ref["start"]
    close(out["history.0"], start, rtol=0, atol=0, what="after the first step")
    close(out["history.1"], start - 0.05 * np.sign(ref["grad0"]), rtol=0, atol=0, what="after the second step")


@check("moving_average_uses_beta2")
def moving_average_uses_beta2(out, ref):
    # m_t = sum_k (1 - beta2) beta2^(t-k) g_k  (geometric average with beta2, independent of beta1).
    t = 6
    expected = sum((1 - 0.8) * 0.8 ** (t - 1 - k) * ref[f"grads.{k}"] for k in range(t))
    close(out["exp_avg"], expected, rtol=1e-12, atol=1e-12, what="exp_avg")


@check("zero_gradient_only_decays")
def zero_gradient_only_decays(out, ref):
    # sign(0) = 0: only the decay acts, theta * (1 - 0.025)
    close(out["param"], [1.95, -3.9, 0.0], rtol=0, atol=1e-15, what="parameter")
    expect(np.count_nonzero(out["exp_avg"]) == 0, "the moving average of zero gradients is not zero")


@check("parameters_without_gradient_are_untouched")
def parameters_without_gradient_are_untouched(out, ref):
    equal(out["b"], np.ones(2), what="parameter without a gradient (no weight decay without a gradient)")
    equal(out["b_state_len"], 0, what="state of the parameter without a gradient")


@check("closure_is_called_and_its_loss_returned")
def closure_is_called(out, ref):
    steps = sum(1 for key in ref if key.endswith(".calls"))
    expect(steps == 12, f"the reference run has {steps} steps, not 12")
    for t in range(steps):
        equal(out[f"step{t}.calls"], t + 1, what=f"closure calls after step {t + 1}")
        equal(np.ndim(out[f"step{t}.loss"]), 0, what=f"the closure's loss returned by step {t + 1} (a 0-d tensor)")
    expect(out[f"step{steps - 1}.loss"] < out["step0.loss"], "the loss does not fall")


@check("gradients_are_not_modified")
def gradients_are_not_modified(out, ref):
    for i in range(2):
        equal(out[f"after.{i}"], ref[f"given.{i}"], what=f"gradient of parameter {i}")
