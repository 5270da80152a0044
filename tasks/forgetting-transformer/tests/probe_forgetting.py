"""Probe for forgetting-transformer/1: `forgetting_attention`, `token_shift` and `ForgettingAttention.forward`
in fox/forgetting.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_forgetting.py add hand-checked values and the properties the method description states."""
from __future__ import annotations

import math
from pathlib import Path

import torch

from fox.attention import CausalSelfAttention, softmax_attention
from fox.config import ModelConfig
from fox.forgetting import ForgettingAttention, forgetting_attention, token_shift
from fox.model import FoxLM
from lmrbench_probe import case
from train import train

FIXTURES = Path(__file__).parent / "fixtures"
ATTENTION = torch.load(FIXTURES / "attention_cases.pt", weights_only=True)
SHIFT = torch.load(FIXTURES / "shift_cases.pt", weights_only=True)
LAYER = torch.load(FIXTURES / "layer_cases.pt", weights_only=True)
F64 = torch.float64
# tolerances measured in NOTES.md: float64 spread <= 1.2e-14 abs, float32 spread <= 2.4e-6 abs
TOL64 = dict(rtol=1e-10, atol=1e-12)
TOL32 = {"f32.*": dict(rtol=2e-4, atol=2e-5)}


def randn(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=F64)


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == torch.float32 else ""


def attention_with_grads(c: dict) -> dict:
    names = ("q", "k", "v", "log_fgate")
    leaves = [c[n].clone().requires_grad_(True) for n in names]
    out = forgetting_attention(*leaves, scale=c["scale"])
    grads = torch.autograd.grad((out * c["cotangent"]).sum(), leaves)
    p = prefix(c["q"].dtype)
    return {f"{p}out": out, **{f"{p}grad_{n}": g for n, g in zip(names, grads)}}


def build_layer(c: dict) -> ForgettingAttention:
    layer = ForgettingAttention(ModelConfig(**c["config"])).to(c["x"].dtype)
    layer.load_state_dict(c["state"])
    return layer


# ---------------------------------------------------------------- forgetting_attention


@case(params=range(len(ATTENTION)), **TOL64, outputs=TOL32)
def attention_matches_reference(i):
    return attention_with_grads(ATTENTION[i])


def column(*xs: float) -> torch.Tensor:
    """One sequence, one head, one feature per step: (1, 1, T, 1)."""
    return torch.tensor(xs, dtype=F64).reshape(1, 1, len(xs), 1)


@case(rtol=1e-12, atol=1e-12)
def attention_hand_values():
    # keys all zero: the weights are the gate products alone
    zero_keys = forgetting_attention(column(1.0, 1.0, 1.0), column(0.0, 0.0, 0.0), column(1.0, 2.0, 4.0),
                                     torch.tensor([0.5, 0.5, 0.25], dtype=F64).log().reshape(1, 1, 3), scale=1.0)
    # two tokens with a nonzero query-key product
    with_logits = forgetting_attention(column(0.0, 1.0), column(math.log(3.0), 0.0), column(1.0, -1.0),
                                       torch.tensor([0.3, 0.5], dtype=F64).log().reshape(1, 1, 2), scale=1.0)
    # default scale 1/sqrt(D) with D = 4
    q = torch.full((1, 1, 2, 4), 0.5, dtype=F64)
    k = torch.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]], dtype=F64).reshape(1, 1, 2, 4)
    default_scale = forgetting_attention(q, k, column(1.0, 0.0), torch.zeros(1, 1, 2, dtype=F64))
    return {"zero_keys": zero_keys, "with_logits": with_logits, "default_scale": default_scale}


@case(**TOL64)
def attention_without_forgetting_is_softmax_attention():
    gen = torch.Generator().manual_seed(1)
    q, k, v = randn(gen, 2, 3, 9, 4), randn(gen, 2, 3, 9, 4), randn(gen, 2, 3, 9, 5)
    return {"fox": forgetting_attention(q, k, v, torch.zeros(2, 3, 9, dtype=F64)),
            "fox_scaled": forgetting_attention(q, k, v, torch.zeros(2, 3, 9, dtype=F64), scale=0.3),
            "softmax": softmax_attention(q, k, v), "softmax_scaled": softmax_attention(q, k, v, scale=0.3)}


@case(**TOL64)
def attention_is_causal():
    gen = torch.Generator().manual_seed(2)
    q, k, v = randn(gen, 1, 2, 10, 3), randn(gen, 1, 2, 10, 3), randn(gen, 1, 2, 10, 3)
    log_f = -torch.rand(1, 2, 10, generator=gen, dtype=F64)
    base = forgetting_attention(q, k, v, log_f)
    cut = 6  # change every input after position cut
    q2, k2, v2, f2 = q.clone(), k.clone(), v.clone(), log_f.clone()
    q2[:, :, cut + 1:] += 5.0
    k2[:, :, cut + 1:] -= 3.0
    v2[:, :, cut + 1:] *= -2.0
    f2[:, :, cut + 1:] = -4.0
    return {"base": base, "changed": forgetting_attention(q2, k2, v2, f2), "cut": cut}


@case(**TOL64)
def attention_ignores_the_first_gate():
    gen = torch.Generator().manual_seed(3)
    q, k, v = randn(gen, 2, 2, 7, 3), randn(gen, 2, 2, 7, 3), randn(gen, 2, 2, 7, 2)
    log_f = -torch.rand(2, 2, 7, generator=gen, dtype=F64)
    other = log_f.clone()
    other[..., 0] = -5.0
    return {"base": forgetting_attention(q, k, v, log_f), "first_changed": forgetting_attention(q, k, v, other)}


@case(**TOL64)
def attention_full_forgetting_keeps_the_current_value():
    gen = torch.Generator().manual_seed(4)
    q, k, v = randn(gen, 2, 2, 8, 3), randn(gen, 2, 2, 8, 3), randn(gen, 2, 2, 8, 4)
    return {"out": forgetting_attention(q, k, v, torch.full((2, 2, 8), -200.0, dtype=F64)), "v": v}


@case(**TOL64)
def attention_heads_and_batch_are_independent():
    gen = torch.Generator().manual_seed(5)
    q, k, v = randn(gen, 3, 4, 6, 3), randn(gen, 3, 4, 6, 3), randn(gen, 3, 4, 6, 2)
    log_f = -2 * torch.rand(3, 4, 6, generator=gen, dtype=F64)
    single = forgetting_attention(q[1:2, 2:3], k[1:2, 2:3], v[1:2, 2:3], log_f[1:2, 2:3])
    return {"full": forgetting_attention(q, k, v, log_f), "single": single}


@case
def attention_gate_shape_mismatch_raises():
    q = torch.zeros(1, 2, 5, 3, dtype=F64)
    return {"result": forgetting_attention(q, q, q, torch.zeros(1, 5, 2, dtype=F64))}


# ---------------------------------------------------------------- token_shift


@case(params=range(len(SHIFT)), **TOL64, outputs=TOL32)
def shift_matches_reference(i):
    c = SHIFT[i]
    x, alpha = c["x"].clone().requires_grad_(True), c["alpha"].clone().requires_grad_(True)
    out = token_shift(x, alpha)
    gx, ga = torch.autograd.grad((out * c["cotangent"]).sum(), (x, alpha))
    p = prefix(c["x"].dtype)
    return {f"{p}out": out, f"{p}grad_x": gx, f"{p}grad_alpha": ga}


@case(rtol=1e-12, atol=1e-12)
def shift_hand_values():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=F64).reshape(1, 3, 1, 1)
    alpha = torch.tensor([0.5, 0.25, 1.0], dtype=F64).reshape(1, 3, 1)
    gen = torch.Generator().manual_seed(6)
    y = randn(gen, 2, 5, 3, 2)
    return {"out": token_shift(x, alpha), "y": y,
            "alpha0": token_shift(y, torch.zeros(2, 5, 3, dtype=F64)),
            "alpha1": token_shift(y, torch.ones(2, 5, 3, dtype=F64))}


# ---------------------------------------------------------------- ForgettingAttention.forward


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def layer_matches_reference(i):
    c = LAYER[i]
    layer = build_layer(c)
    x = c["x"].clone().requires_grad_(True)
    out = layer(x)
    params = dict(layer.named_parameters())
    grads = torch.autograd.grad((out * c["cotangent"]).sum(), [x, *params.values()])
    p = prefix(c["x"].dtype)
    return {f"{p}out": out, f"{p}grad_x": grads[0],
            **{f"{p}grad.{name}": g for name, g in zip(params, grads[1:])}}


@case(params=["llama", "pro"], ids=["llama", "pro"], **TOL64)
def layer_is_causal(block):
    c = LAYER[0] if block == "llama" else LAYER[1]
    layer = build_layer(c)
    x = c["x"].clone()
    changed = x.clone()
    changed[:, 4:] = 3.0 * torch.randn(changed[:, 4:].shape, generator=torch.Generator().manual_seed(7), dtype=F64)
    return {"base": layer(x), "changed": layer(changed), "cut": 3}


@case(**TOL64)
def layer_without_forgetting_is_the_baseline():
    gen = torch.Generator().manual_seed(8)
    cfg = ModelConfig(d_model=16, n_heads=4, block="llama", attention="forgetting", rope=False)
    fox = ForgettingAttention(cfg).to(F64)
    base = CausalSelfAttention(ModelConfig(d_model=16, n_heads=4, block="llama", attention="softmax",
                                           rope=False)).to(F64)
    with torch.no_grad():
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            weight = randn(gen, 16, 16) / 4
            getattr(fox, name).weight.copy_(weight)
            getattr(base, name).weight.copy_(weight)
        fox.fgate_proj.weight.zero_()
        fox.fgate_proj.bias.fill_(80.0)  # f = sigmoid(80): log f = -1.8e-35
    x = randn(gen, 2, 8, 16)
    return {"fox": fox(x), "baseline": base(x)}


# ---------------------------------------------------------------- the model end to end


@case(params=["llama", "pro"], ids=["llama", "pro"], rtol=1e-8, atol=1e-10)
def model_end_to_end(block):
    cfg = ModelConfig(vocab_size=16, d_model=16, n_heads=2, n_layers=2, d_ff=32, block=block)
    torch.manual_seed(0)
    model = FoxLM(cfg).to(F64)
    tokens = torch.randint(0, 16, (2, 12), generator=torch.Generator().manual_seed(9))
    logits = model(tokens)
    losses = train(cfg, steps=4, batch_size=2, seq_len=10, seed=1, dtype=F64)
    return {"logits": logits, "loss": model.loss(tokens), "train_losses": torch.tensor(losses, dtype=F64)}
