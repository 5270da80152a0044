"""Hidden tests for hyena/1: fft_causal_conv and HyenaOperator.forward."""

from pathlib import Path

import pytest
import torch
from torch import nn

from hyena.operator import HyenaOperator, fft_causal_conv

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "operator_cases.pt", weights_only=True)
ATOL, RTOL = 1e-9, 1e-7
F64 = torch.float64


def assert_close(got, expected, atol=ATOL, rtol=RTOL):
    """Shape and dtype check plus |got - expected| <= atol + rtol * |expected| elementwise."""
    assert isinstance(got, torch.Tensor), type(got)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert torch.allclose(got, expected, atol=atol, rtol=rtol), f"max abs diff {(got - expected).abs().max():.3e}"


def direct_causal_conv(u, h):
    """y[..., c, t] = sum_{s <= t} h[c, t - s] u[..., c, s], by an explicit sum over lags."""
    seq_len, taps = u.shape[-1], h.shape[-1]
    y = torch.zeros_like(u)
    for lag in range(min(seq_len, taps)):
        y[..., lag:] = y[..., lag:] + h[:, lag : lag + 1] * u[..., : seq_len - lag]
    return y


class FixedFilter(nn.Module):
    """Stands in for HyenaFilter: returns given filters (cut to the sequence length) and biases."""

    def __init__(self, h, bias):
        super().__init__()
        self.h, self.b = h, bias

    def forward(self, seq_len):
        return self.h[..., :seq_len], self.b


def build(case) -> HyenaOperator:
    d_model, order, _, _, short, l_max, filter_order, emb_dim = case["config"]
    op = HyenaOperator(d_model, l_max, order=order, filter_order=filter_order, short_filter_size=short,
                       emb_dim=emb_dim).double()
    op.load_state_dict(case["state_dict"])
    return op


def random_operator(d_model=3, order=2, l_max=24, seed=0):
    torch.manual_seed(seed)
    return HyenaOperator(d_model, l_max, order=order, filter_order=8).double()


# ---------------------------------------------------------------- fft_causal_conv


@pytest.mark.parametrize(
    "channels,seq_len,taps,lead",
    [(3, 8, 8, ()), (2, 10, 4, (2,)), (4, 6, 11, (2, 3)), (1, 1, 1, ()), (3, 17, 17, (1,)), (2, 5, 1, (3,)),
     (2, 31, 31, (2,)), (5, 12, 30, ())],
)
def test_fft_conv_equals_direct_causal_sum(channels, seq_len, taps, lead):
    gen = torch.Generator().manual_seed(seq_len * 100 + taps)
    u = torch.randn(*lead, channels, seq_len, generator=gen, dtype=F64)
    h = torch.randn(channels, taps, generator=gen, dtype=F64)
    y = fft_causal_conv(u, h)
    assert_close(y, direct_causal_conv(u, h), atol=1e-10, rtol=1e-9)


def test_fft_conv_hand_checked():
    # h = (1, 2, 3), u = (1, 0, -1): y0 = 1*1 = 1; y1 = 2*1 + 1*0 = 2; y2 = 3*1 + 2*0 + 1*(-1) = 2
    # (a circular convolution would give y0 = 1*1 + 2*(-1) + 3*0 = -1; a correlation would look ahead)
    u = torch.tensor([[1.0, 0.0, -1.0]], dtype=F64)
    h = torch.tensor([[1.0, 2.0, 3.0]], dtype=F64)
    assert_close(fft_causal_conv(u, h), torch.tensor([[1.0, 2.0, 2.0]], dtype=F64), atol=1e-12, rtol=0)


def test_fft_conv_impulse_response_is_the_filter():
    gen = torch.Generator().manual_seed(1)
    h = torch.randn(3, 9, generator=gen, dtype=F64)
    u = torch.zeros(2, 3, 12, dtype=F64)
    u[..., 0] = 1.0
    y = fft_causal_conv(u, h)
    assert_close(y[..., :9], h.expand(2, 3, 9), atol=1e-12, rtol=0)
    assert y[..., 9:].abs().max() < 1e-12
    u = torch.zeros(3, 12, dtype=F64)
    u[:, 4] = 1.0  # a delayed impulse gives the delayed filter
    y = fft_causal_conv(u, h)
    assert y[:, :4].abs().max() < 1e-12
    assert_close(y[:, 4:], h[:, :8], atol=1e-12, rtol=0)


def test_fft_conv_keeps_float32_and_gradients_match_direct_sum():
    gen = torch.Generator().manual_seed(2)
    u32 = torch.randn(2, 3, 10, generator=gen)
    h64 = torch.randn(3, 10, generator=gen, dtype=F64)
    y = fft_causal_conv(u32, h64)
    assert y.dtype == torch.float32 and y.shape == u32.shape
    assert torch.allclose(y.double(), direct_causal_conv(u32.double(), h64), atol=1e-5, rtol=1e-5)

    u = torch.randn(2, 3, 10, generator=gen, dtype=F64, requires_grad=True)
    h = torch.randn(3, 7, generator=gen, dtype=F64, requires_grad=True)
    w = torch.randn(2, 3, 10, generator=gen, dtype=F64)
    g_fft = torch.autograd.grad((fft_causal_conv(u, h) * w).sum(), [u, h])
    g_dir = torch.autograd.grad((direct_causal_conv(u, h) * w).sum(), [u, h])
    for a, b in zip(g_fft, g_dir):
        assert_close(a, b, atol=1e-10, rtol=1e-9)


# ---------------------------------------------------------------- HyenaOperator.forward: differential


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_operator_matches_reference(idx):
    case = CASES[idx]
    op = build(case)
    with torch.no_grad():
        out = op(case["u"].clone())
    assert_close(out, case["output"])


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_operator_gradients_match_reference(idx):
    case = CASES[idx]
    op = build(case)
    u = case["u"].clone().requires_grad_(True)
    params = dict(op.named_parameters())
    grads = torch.autograd.grad((op(u) * case["cotangent"]).sum(), [u, *params.values()], allow_unused=True)
    assert_close(grads[0], case["u_grad"])
    for name, g in zip(params, grads[1:]):
        assert g is not None, f"no gradient reaches {name}"
        assert_close(g, case["param_grads"][name])


# ---------------------------------------------------------------- HyenaOperator.forward: by hand


def set_linear(layer, weight, bias):
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(weight, dtype=F64))
        layer.bias.copy_(torch.tensor(bias, dtype=F64))


def test_operator_hand_checked_order_one():
    # d_model 1, N = 1, L = 3. in_proj: v = u, x^1 = 2u; short filter = identity (tap on the current step).
    # h^1 = (1, 0.5, 0.25), bias^1 = 0.1; out_proj(y) = y + 0.5.  u = (1, 2, -1):
    # h * v = (1, 0.5*1 + 2, 0.25*1 + 0.5*2 - 1) = (1, 2.5, 0.25); + 0.1 v = (1.1, 2.7, 0.15)
    # z^2 = x^1 * that = (2, 4, -2) * (1.1, 2.7, 0.15) = (2.2, 10.8, -0.3); output = (2.7, 11.3, 0.2)
    op = HyenaOperator(1, 8, order=1, filter_order=4).double()
    set_linear(op.in_proj, [[1.0], [2.0]], [0.0, 0.0])
    with torch.no_grad():
        op.short_filter.weight.copy_(torch.tensor([[[0.0, 0.0, 1.0]], [[0.0, 0.0, 1.0]]], dtype=F64))
        op.short_filter.bias.zero_()
    op.filter = FixedFilter(torch.tensor([[[1.0, 0.5, 0.25]]], dtype=F64), torch.tensor([[0.1]], dtype=F64))
    set_linear(op.out_proj, [[1.0]], [0.5])
    u = torch.tensor([1.0, 2.0, -1.0], dtype=F64).view(1, 3, 1)
    with torch.no_grad():
        out = op(u)
    assert_close(out.flatten(), torch.tensor([2.7, 11.3, 0.2], dtype=F64), atol=1e-12, rtol=0)


def test_operator_hand_checked_order_two():
    # d_model 1, N = 2, L = 3. in_proj gives channels (v, x^1, x^2) = (u, 2u, -u) before the short filter,
    # whose taps [w0, w1, w2] act on (u_{t-2}, u_{t-1}, u_t): v and x^2 keep the current step, x^1 takes the
    # previous one. h^1 = delta (identity), bias^1 = 0; h^2 = one-step delay, bias^2 = 1.  u = (1, 2, 3):
    # v = (1, 2, 3); x^1 = 2 * (0, 1, 2) = (0, 2, 4); x^2 = (-1, -2, -3)
    # z^2 = x^1 * (v + 0) = (0, 4, 12); h^2 * z^2 = (0, 0, 4); + z^2 = (0, 4, 16); z^3 = x^2 * that = (0, -8, -48)
    op = HyenaOperator(1, 8, order=2, filter_order=4).double()
    set_linear(op.in_proj, [[1.0], [2.0], [-1.0]], [0.0, 0.0, 0.0])
    with torch.no_grad():
        op.short_filter.weight.copy_(
            torch.tensor([[[0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0]]], dtype=F64)
        )
        op.short_filter.bias.zero_()
    h = torch.tensor([[[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]]], dtype=F64)
    op.filter = FixedFilter(h, torch.tensor([[0.0], [1.0]], dtype=F64))
    set_linear(op.out_proj, [[1.0]], [0.0])
    u = torch.tensor([1.0, 2.0, 3.0], dtype=F64).view(1, 3, 1)
    with torch.no_grad():
        out = op(u)
    assert_close(out.flatten(), torch.tensor([0.0, -8.0, -48.0], dtype=F64), atol=1e-12, rtol=0)


# ---------------------------------------------------------------- HyenaOperator.forward: properties


def test_operator_is_causal():
    op = random_operator(d_model=3, order=2, l_max=24, seed=3)
    gen = torch.Generator().manual_seed(4)
    u = torch.randn(2, 20, 3, generator=gen, dtype=F64)
    with torch.no_grad():
        base = op(u)
        for cut in (0, 7, 18):
            changed = u.clone()
            changed[:, cut + 1 :] += 3.0 * torch.randn(changed[:, cut + 1 :].shape, generator=gen, dtype=F64)
            out = op(changed)
            assert_close(out[:, : cut + 1], base[:, : cut + 1], atol=1e-10, rtol=0)
            assert (out[:, cut + 1 :] - base[:, cut + 1 :]).abs().max() > 1e-3


def test_operator_output_depends_on_the_distant_past():
    # the long convolution carries information across the whole sequence, beyond the short filter's reach
    op = random_operator(d_model=3, order=2, l_max=24, seed=5)
    u = torch.randn(1, 20, 3, generator=torch.Generator().manual_seed(6), dtype=F64, requires_grad=True)
    out = op(u)
    (g,) = torch.autograd.grad(out[0, -1].sum(), u)
    assert g[0, 0].abs().max() > 1e-8
    assert g[0, 1:].abs().max() > 1e-8


def test_operator_samples_are_independent():
    op = random_operator(d_model=4, order=3, l_max=16, seed=7)
    u = torch.randn(3, 13, 4, generator=torch.Generator().manual_seed(8), dtype=F64)
    with torch.no_grad():
        full = op(u)
        single = op(u[1:2].clone())
        u2 = u.clone()
        u2[0] += 1.0
        changed = op(u2)
    assert full.shape == (3, 13, 4)
    assert_close(single, full[1:2], atol=1e-12, rtol=1e-10)
    assert_close(changed[1:], full[1:], atol=1e-12, rtol=1e-10)


def test_operator_uses_the_generated_filters():
    # filter n is used at step n, as a causal kernel: moving one tap of h^2 at lag 3 changes outputs from t = 3 on
    op = random_operator(d_model=2, order=2, l_max=16, seed=9)
    u = torch.randn(2, 10, 2, generator=torch.Generator().manual_seed(10), dtype=F64)
    with torch.no_grad():
        h, bias = op.filter(10)
        op.filter = FixedFilter(h, bias)
        base = op(u)
        h2 = h.clone()
        h2[1, :, 3] += 1.0
        op.filter = FixedFilter(h2, bias)
        moved = op(u)
        b2 = bias.clone()
        b2[0] += 1.0
        op.filter = FixedFilter(h, b2)
        biased = op(u)
    assert_close(moved[:, :3], base[:, :3], atol=1e-10, rtol=0)
    assert (moved[:, 3:] - base[:, 3:]).abs().max() > 1e-6
    assert (biased - base).abs().amin(dim=(0, 2)).max() > 1e-6
