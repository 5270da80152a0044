"""Trusted checks for hyena/1 (never enter the sandbox): the direct causal sum, hand-checked values and the
operator's properties, on the outputs probe_hyena_operator.py emitted. The default comparison with the
reference's outputs has already passed."""

import numpy as np

from lmrbench.checks import check, close, equal, expect


def direct_causal_conv(u, h):
    """y[..., c, t] = sum_{s <= t} h[c, t - s] u[..., c, s], by an explicit sum over lags."""
    seq_len, taps = u.shape[-1], h.shape[-1]
    y = np.zeros_like(u)
    for lag in range(min(seq_len, taps)):
        y[..., lag:] += h[:, lag : lag + 1] * u[..., : seq_len - lag]
    return y


def direct_causal_conv_grads(u, h, w):
    """Gradients of sum(w * direct_causal_conv(u, h)) with respect to u and h, written out from the sum:
    d/du[..., c, s] = sum_{t >= s} h[c, t - s] w[..., c, t];
    d/dh[c, k] = sum_{batch, t >= k} w[..., c, t] u[..., c, t - k]."""
    seq_len, taps = u.shape[-1], h.shape[-1]
    grad_u, grad_h = np.zeros_like(u), np.zeros_like(h)
    lead = tuple(range(u.ndim - 2))
    for lag in range(min(seq_len, taps)):
        grad_u[..., : seq_len - lag] += h[:, lag : lag + 1] * w[..., lag:]
        grad_h[:, lag] = (w[..., lag:] * u[..., : seq_len - lag]).sum(axis=(*lead, u.ndim - 1))
    return grad_u, grad_h


# ---------------------------------------------------------------- fft_causal_conv


@check("fft_conv_direct_sum*")
def fft_conv_equals_direct_causal_sum(out, ref):
    close(out["y"], direct_causal_conv(ref["u"], ref["h"]), atol=1e-10, rtol=1e-9, what="y")


@check("fft_conv_hand_checked")
def fft_conv_hand_checked(out, ref):
    # h = (1, 2, 3), u = (1, 0, -1): y0 = 1*1 = 1; y1 = 2*1 + 1*0 = 2; y2 = 3*1 + 2*0 + 1*(-1) = 2
    # (a circular convolution would give y0 = 1*1 + 2*(-1) + 3*0 = -1; a correlation would look ahead)
    close(out["y"], [[1.0, 2.0, 2.0]], atol=1e-12, rtol=0, what="y")


@check("fft_conv_impulse_response")
def fft_conv_impulse_response_is_the_filter(out, ref):
    h, y = ref["h"], out["at_zero"]
    close(y[..., :9], np.broadcast_to(h, (2, 3, 9)), atol=1e-12, rtol=0, what="impulse at 0")
    expect(np.abs(y[..., 9:]).max() < 1e-12, "impulse at 0: output after the filter's length is not zero")
    y = out["delayed"]  # a delayed impulse gives the delayed filter
    expect(np.abs(y[:, :4]).max() < 1e-12, "impulse at 4: output before the impulse is not zero")
    close(y[:, 4:], h[:, :8], atol=1e-12, rtol=0, what="impulse at 4")


@check("fft_conv_float32_and_gradients")
def fft_conv_keeps_float32_and_gradients_match_direct_sum(out, ref):
    equal(out["y32#dtype"], "float32", what="dtype of the output for a float32 signal")
    equal(list(out["y32"].shape), list(ref["u32"].shape), what="shape of the output")
    close(out["y32"], direct_causal_conv(ref["u32"].astype(np.float64), ref["h64"]), atol=1e-5, rtol=1e-5,
          what="float32 output")
    grad_u, grad_h = direct_causal_conv_grads(ref["u"], ref["h"], ref["w"])
    close(out["grad_u"], grad_u, atol=1e-10, rtol=1e-9, what="gradient w.r.t. the signal")
    close(out["grad_h"], grad_h, atol=1e-10, rtol=1e-9, what="gradient w.r.t. the filter")


# ---------------------------------------------------------------- HyenaOperator.forward: by hand


@check("operator_hand_checked_order_one")
def operator_hand_checked_order_one(out, ref):
    # d_model 1, N = 1, L = 3. in_proj: v = u, x^1 = 2u; short filter = identity (tap on the current step).
    # h^1 = (1, 0.5, 0.25), bias^1 = 0.1; out_proj(y) = y + 0.5.  u = (1, 2, -1):
    # h * v = (1, 0.5*1 + 2, 0.25*1 + 0.5*2 - 1) = (1, 2.5, 0.25); + 0.1 v = (1.1, 2.7, 0.15)
    # z^2 = x^1 * that = (2, 4, -2) * (1.1, 2.7, 0.15) = (2.2, 10.8, -0.3); output = (2.7, 11.3, 0.2)
    close(out["output"], [2.7, 11.3, 0.2], atol=1e-12, rtol=0, what="output")


@check("operator_hand_checked_order_two")
def operator_hand_checked_order_two(out, ref):
    # d_model 1, N = 2, L = 3. in_proj gives channels (v, x^1, x^2) = (u, 2u, -u) before the short filter,
    # whose taps [w0, w1, w2] act on (u_{t-2}, u_{t-1}, u_t): v and x^2 keep the current step, x^1 takes the
    # previous one. h^1 = delta (identity), bias^1 = 0; h^2 = one-step delay, bias^2 = 1.  u = (1, 2, 3):
    # v = (1, 2, 3); x^1 = 2 * (0, 1, 2) = (0, 2, 4); x^2 = (-1, -2, -3)
    # z^2 = x^1 * (v + 0) = (0, 4, 12); h^2 * z^2 = (0, 0, 4); + z^2 = (0, 4, 16); z^3 = x^2 * that = (0, -8, -48)
    close(out["output"], [0.0, -8.0, -48.0], atol=1e-12, rtol=0, what="output")


# ---------------------------------------------------------------- HyenaOperator.forward: properties


@check("operator_is_causal")
def operator_is_causal(out, ref):
    base = out["base"]
    for cut in (0, 7, 18):
        changed = out[f"cut{cut}"]
        close(changed[:, : cut + 1], base[:, : cut + 1], atol=1e-10, rtol=0,
              what=f"outputs up to t = {cut} after changing later inputs")
        expect(np.abs(changed[:, cut + 1 :] - base[:, cut + 1 :]).max() > 1e-3,
               f"outputs after t = {cut} do not change when the inputs there do")


@check("operator_output_depends_on_the_distant_past")
def operator_output_depends_on_the_distant_past(out, ref):
    # the long convolution carries information across the whole sequence, beyond the short filter's reach
    g = out["grad"]
    expect(np.abs(g[0, 0]).max() > 1e-8, "the last output does not depend on the first input")
    expect(np.abs(g[0, 1:]).max() > 1e-8, "the last output does not depend on the later inputs")


@check("operator_samples_are_independent")
def operator_samples_are_independent(out, ref):
    full = out["full"]
    equal(list(full.shape), [3, 13, 4], what="output shape")
    close(out["single"], full[1:2], atol=1e-12, rtol=1e-10, what="a batch of one")
    close(out["changed"][1:], full[1:], atol=1e-12, rtol=1e-10, what="other samples after changing sample 0")


@check("operator_uses_the_generated_filters")
def operator_uses_the_generated_filters(out, ref):
    # filter n is used at step n, as a causal kernel: moving one tap of h^2 at lag 3 changes outputs from t = 3 on
    base, moved, biased = out["base"], out["moved"], out["biased"]
    close(moved[:, :3], base[:, :3], atol=1e-10, rtol=0, what="outputs before the moved tap's lag")
    expect(np.abs(moved[:, 3:] - base[:, 3:]).max() > 1e-6, "moving a tap of h^2 does not change the output")
    expect(np.abs(biased - base).min(axis=(0, 2)).max() > 1e-6, "the skip bias of step 1 is not used")
