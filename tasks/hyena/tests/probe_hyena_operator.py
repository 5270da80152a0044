"""Probe for hyena/1: fft_causal_conv and HyenaOperator.forward. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_hyena_operator.py add the direct causal sum, hand-checked values and the operator's properties."""

from pathlib import Path

import torch
from torch import nn

from hyena.operator import HyenaOperator, fft_causal_conv
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "operator_cases.pt", weights_only=True)
F64 = torch.float64
OPERATOR_TOL = dict(rtol=1e-7, atol=1e-9)
CONV_SHAPES = [(3, 8, 8, ()), (2, 10, 4, (2,)), (4, 6, 11, (2, 3)), (1, 1, 1, ()), (3, 17, 17, (1,)), (2, 5, 1, (3,)),
               (2, 31, 31, (2,)), (5, 12, 30, ())]


def tensor(x):
    """The candidate's result if it is a tensor, else a NaN scalar that fails every comparison (the harness
    cannot compare None or a list with the reference's array)."""
    return x if isinstance(x, torch.Tensor) else torch.tensor(float("nan"))


class FixedFilter(nn.Module):
    """Stands in for HyenaFilter: returns given filters (cut to the sequence length) and biases."""

    def __init__(self, h, bias):
        super().__init__()
        self.h, self.b = h, bias

    def forward(self, seq_len):
        return self.h[..., :seq_len], self.b


def build(c) -> HyenaOperator:
    d_model, order, _, _, short, l_max, filter_order, emb_dim = c["config"]
    op = HyenaOperator(d_model, l_max, order=order, filter_order=filter_order, short_filter_size=short,
                       emb_dim=emb_dim).double()
    op.load_state_dict(c["state_dict"])
    return op


def random_operator(d_model=3, order=2, l_max=24, seed=0):
    torch.manual_seed(seed)
    return HyenaOperator(d_model, l_max, order=order, filter_order=8).double()


def set_linear(layer, weight, bias):
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(weight, dtype=F64))
        layer.bias.copy_(torch.tensor(bias, dtype=F64))


# ---------------------------------------------------------------- fft_causal_conv (check: the direct causal sum)


@case(params=CONV_SHAPES, ids=[f"c{c}-L{n}-taps{k}-lead{len(lead)}" for c, n, k, lead in CONV_SHAPES],
      rtol=1e-9, atol=1e-10)
def fft_conv_direct_sum(shape):
    channels, seq_len, taps, lead = shape
    gen = torch.Generator().manual_seed(seq_len * 100 + taps)
    u = torch.randn(*lead, channels, seq_len, generator=gen, dtype=F64)
    h = torch.randn(channels, taps, generator=gen, dtype=F64)
    return {"u": u, "h": h, "y": tensor(fft_causal_conv(u, h))}


@case(rtol=0, atol=1e-12)
def fft_conv_hand_checked():
    u = torch.tensor([[1.0, 0.0, -1.0]], dtype=F64)
    h = torch.tensor([[1.0, 2.0, 3.0]], dtype=F64)
    return {"y": tensor(fft_causal_conv(u, h))}


@case(rtol=0, atol=1e-12)
def fft_conv_impulse_response():
    gen = torch.Generator().manual_seed(1)
    h = torch.randn(3, 9, generator=gen, dtype=F64)
    u = torch.zeros(2, 3, 12, dtype=F64)
    u[..., 0] = 1.0
    at_zero = tensor(fft_causal_conv(u, h))
    u = torch.zeros(3, 12, dtype=F64)
    u[:, 4] = 1.0  # a delayed impulse gives the delayed filter
    return {"h": h, "at_zero": at_zero, "delayed": tensor(fft_causal_conv(u, h))}


@case(rtol=1e-9, atol=1e-10, outputs={"y32": dict(rtol=1e-5, atol=1e-5)})
def fft_conv_float32_and_gradients():
    gen = torch.Generator().manual_seed(2)
    u32 = torch.randn(2, 3, 10, generator=gen)
    h64 = torch.randn(3, 10, generator=gen, dtype=F64)
    y32 = tensor(fft_causal_conv(u32, h64))
    u = torch.randn(2, 3, 10, generator=gen, dtype=F64, requires_grad=True)
    h = torch.randn(3, 7, generator=gen, dtype=F64, requires_grad=True)
    w = torch.randn(2, 3, 10, generator=gen, dtype=F64)
    grad_u, grad_h = torch.autograd.grad((fft_causal_conv(u, h) * w).sum(), [u, h])
    return {"u32": u32, "h64": h64, "y32": y32, "u": u.detach(), "h": h.detach(), "w": w,
            "grad_u": grad_u, "grad_h": grad_h}


# ---------------------------------------------------------------- HyenaOperator.forward: the reference's outputs


@case(params=range(len(CASES)), **OPERATOR_TOL)
def operator_matches_reference(idx):
    c = CASES[idx]
    op = build(c)
    with torch.no_grad():
        out = tensor(op(c["u"].clone()))
    u = c["u"].clone().requires_grad_(True)
    params = dict(op.named_parameters())
    grads = torch.autograd.grad((op(u) * c["cotangent"]).sum(), [u, *params.values()], allow_unused=True)
    return {"output": out, "u_grad": grads[0],
            "reaches": {name: g is not None for name, g in zip(params, grads[1:])},
            "param_grads": {name: tensor(g) for name, g in zip(params, grads[1:])}}


# ---------------------------------------------------------------- HyenaOperator.forward: by hand (check file)


@case(rtol=0, atol=1e-12)
def operator_hand_checked_order_one():
    op = HyenaOperator(1, 8, order=1, filter_order=4).double()
    set_linear(op.in_proj, [[1.0], [2.0]], [0.0, 0.0])
    with torch.no_grad():
        op.short_filter.weight.copy_(torch.tensor([[[0.0, 0.0, 1.0]], [[0.0, 0.0, 1.0]]], dtype=F64))
        op.short_filter.bias.zero_()
    op.filter = FixedFilter(torch.tensor([[[1.0, 0.5, 0.25]]], dtype=F64), torch.tensor([[0.1]], dtype=F64))
    set_linear(op.out_proj, [[1.0]], [0.5])
    u = torch.tensor([1.0, 2.0, -1.0], dtype=F64).view(1, 3, 1)
    with torch.no_grad():
        out = tensor(op(u))
    return {"output": out.flatten()}


@case(rtol=0, atol=1e-12)
def operator_hand_checked_order_two():
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
        out = tensor(op(u))
    return {"output": out.flatten()}


# ---------------------------------------------------------------- HyenaOperator.forward: properties (check file)


@case(**OPERATOR_TOL)
def operator_is_causal():
    op = random_operator(d_model=3, order=2, l_max=24, seed=3)
    gen = torch.Generator().manual_seed(4)
    u = torch.randn(2, 20, 3, generator=gen, dtype=F64)
    out = {}
    with torch.no_grad():
        out["base"] = tensor(op(u))
        for cut in (0, 7, 18):
            changed = u.clone()
            changed[:, cut + 1 :] += 3.0 * torch.randn(changed[:, cut + 1 :].shape, generator=gen, dtype=F64)
            out[f"cut{cut}"] = tensor(op(changed))
    return out


@case(**OPERATOR_TOL)
def operator_output_depends_on_the_distant_past():
    op = random_operator(d_model=3, order=2, l_max=24, seed=5)
    u = torch.randn(1, 20, 3, generator=torch.Generator().manual_seed(6), dtype=F64, requires_grad=True)
    out = op(u)
    (g,) = torch.autograd.grad(out[0, -1].sum(), u)
    return {"grad": g}


@case(**OPERATOR_TOL)
def operator_samples_are_independent():
    op = random_operator(d_model=4, order=3, l_max=16, seed=7)
    u = torch.randn(3, 13, 4, generator=torch.Generator().manual_seed(8), dtype=F64)
    with torch.no_grad():
        full = tensor(op(u))
        single = tensor(op(u[1:2].clone()))
        u2 = u.clone()
        u2[0] += 1.0
        changed = tensor(op(u2))
    return {"full": full, "single": single, "changed": changed}


@case(**OPERATOR_TOL)
def operator_uses_the_generated_filters():
    op = random_operator(d_model=2, order=2, l_max=16, seed=9)
    u = torch.randn(2, 10, 2, generator=torch.Generator().manual_seed(10), dtype=F64)
    with torch.no_grad():
        h, bias = op.filter(10)
        op.filter = FixedFilter(h, bias)
        base = tensor(op(u))
        h2 = h.clone()
        h2[1, :, 3] += 1.0
        op.filter = FixedFilter(h2, bias)
        moved = tensor(op(u))
        b2 = bias.clone()
        b2[0] += 1.0
        op.filter = FixedFilter(h, b2)
        biased = tensor(op(u))
    return {"base": base, "moved": moved, "biased": biased}
