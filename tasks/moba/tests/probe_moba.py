"""Probe for moba/1: `mean_pool_blocks`, `select_blocks`, `moba_attention`, `route_queries` and
`moba_attention_varlen` in moba/moba.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_moba.py add hand-checked values and the properties the method description states."""
from __future__ import annotations

import math
from pathlib import Path

import torch

from lmrbench_probe import case
from moba.attention import causal_attention, masked_attention
from moba.config import ModelConfig
from moba.layer import SelfAttention
from moba.model import MobaLM
from moba.moba import mean_pool_blocks, moba_attention, moba_attention_varlen, route_queries, select_blocks
from train import train

FIXTURES = Path(__file__).parent / "fixtures"
POOL = torch.load(FIXTURES / "pool_cases.pt", weights_only=True)
ATTENTION = torch.load(FIXTURES / "attention_cases.pt", weights_only=True)
ROUTE = torch.load(FIXTURES / "route_cases.pt", weights_only=True)
LAYER = torch.load(FIXTURES / "layer_cases.pt", weights_only=True)
F64 = torch.float64
IMPLS = {"naive": moba_attention, "varlen": moba_attention_varlen}
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-10, atol=1e-12)
TOL32 = {"f32.*": dict(rtol=2e-4, atol=5e-5)}


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == torch.float32 else ""


def randn(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=F64)


def attention_with_grads(impl: str, c: dict) -> dict:
    leaves = [c[n].clone().requires_grad_(True) for n in ("q", "k", "v")]
    out, lse = IMPLS[impl](*leaves, c["block_size"], c["top_k"], scale=c["scale"])
    loss = (out * c["cotangent"]).sum() + (lse * c["lse_cotangent"]).sum()
    grads = torch.autograd.grad(loss, leaves)
    p = prefix(c["q"].dtype)
    return {f"{p}out": out, f"{p}lse": lse, **{f"{p}grad_{n}": g for n, g in zip("qkv", grads)}}


# ---------------------------------------------------------------- mean_pool_blocks and select_blocks


@case(params=range(len(POOL)), **TOL64, outputs=TOL32)
def pool_matches_reference(i):
    c = POOL[i]
    return {f"{prefix(c['k'].dtype)}pooled": mean_pool_blocks(c["k"], c["block_size"])}


@case(params=range(len(ATTENTION)), compare="exact")
def select_matches_reference(i):
    c = ATTENTION[i]
    return {"selected": select_blocks(c["q"], c["k"], c["block_size"], c["top_k"]),
            "block_size": c["block_size"], "top_k": c["top_k"]}


# ---------------------------------------------------------------- the attention, both forms


@case(params=range(len(ATTENTION)), **TOL64, outputs=TOL32)
def naive_matches_reference(i):
    return attention_with_grads("naive", ATTENTION[i])


@case(params=range(len(ATTENTION)), **TOL64, outputs=TOL32)
def varlen_matches_reference(i):
    return attention_with_grads("varlen", ATTENTION[i])


def hand_inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One sequence, one head, D = Dv = 1, T = 6, blocks of 2 (see check_moba.hand_values)."""
    def col(*xs: float) -> torch.Tensor:
        return torch.tensor(xs, dtype=F64).reshape(1, 1, len(xs), 1)
    return col(1, 1, 1, 1, 1, -1), col(1, 1, -1, -1, 0, 0), col(1, 2, 3, 4, 5, 6)


@case(params=["naive", "varlen"], ids=["naive", "varlen"], rtol=1e-12, atol=1e-12)
def hand_values(impl):
    q, k, v = hand_inputs()
    out, lse = IMPLS[impl](q, k, v, 2, 2, scale=1.0)
    return {"out": out, "lse": lse, "selected": select_blocks(q, k, 2, 2), "pooled": mean_pool_blocks(k, 2),
            "pooled_partial": mean_pool_blocks(torch.tensor([1.0, 3.0, -1.0, -1.0, 4.0], dtype=F64).reshape(1, 1, 5, 1), 2)}


@case(params=["naive", "varlen"], ids=["naive", "varlen"], **TOL64)
def top_k_covering_all_blocks_is_full_attention(impl):
    gen = torch.Generator().manual_seed(1)
    q, k, v = randn(gen, 2, 2, 13, 4), randn(gen, 2, 2, 13, 4), randn(gen, 2, 2, 13, 3)
    out, _ = IMPLS[impl](q, k, v, 3, 5)
    scaled, _ = IMPLS[impl](q, k, v, 4, 4, scale=0.4)
    return {"moba": out, "full": causal_attention(q, k, v),
            "moba_scaled": scaled, "full_scaled": causal_attention(q, k, v, scale=0.4)}


@case(params=["naive", "varlen"], ids=["naive", "varlen"], **TOL64)
def top_1_is_causal_attention_within_blocks(impl):
    gen = torch.Generator().manual_seed(2)
    q, k, v = randn(gen, 2, 3, 14, 4), randn(gen, 2, 3, 14, 4), randn(gen, 2, 3, 14, 2)
    out, lse = IMPLS[impl](q, k, v, 4, 1)
    pos = torch.arange(14)
    local = (pos[:, None] // 4 == pos[None, :] // 4) & (pos[None, :] <= pos[:, None])
    ref_out, ref_lse = masked_attention(q, k, v, local, 0.5)
    return {"moba": out, "moba_lse": lse, "local": ref_out, "local_lse": ref_lse}


@case(params=["naive", "varlen"], ids=["naive", "varlen"], **TOL64)
def is_causal(impl):
    gen = torch.Generator().manual_seed(3)
    q, k, v = randn(gen, 1, 2, 15, 4), randn(gen, 1, 2, 15, 4), randn(gen, 1, 2, 15, 3)
    cut = 9  # every input after position cut changes (inside the block of position cut, and later blocks)
    q2, k2, v2 = q.clone(), k.clone(), v.clone()
    q2[:, :, cut + 1:] += 3.0
    k2[:, :, cut + 1:] = -4.0 * k2[:, :, cut + 1:] + 1.0
    v2[:, :, cut + 1:] *= -2.0
    base, base_lse = IMPLS[impl](q, k, v, 4, 2)
    changed, changed_lse = IMPLS[impl](q2, k2, v2, 4, 2)
    return {"base": base, "changed": changed, "base_lse": base_lse, "changed_lse": changed_lse, "cut": cut}


@case(params=["naive", "varlen"], ids=["naive", "varlen"], **TOL64)
def heads_and_batch_are_independent(impl):
    gen = torch.Generator().manual_seed(4)
    q, k, v = randn(gen, 3, 4, 11, 4), randn(gen, 3, 4, 11, 4), randn(gen, 3, 4, 11, 2)
    full, _ = IMPLS[impl](q, k, v, 3, 2)
    single, _ = IMPLS[impl](q[2:3, 1:2], k[2:3, 1:2], v[2:3, 1:2], 3, 2)
    return {"full": full, "single": single}


@case(**TOL64)
def varlen_agrees_with_naive():
    gen = torch.Generator().manual_seed(5)
    q, k, v = 2.0 * randn(gen, 2, 3, 37, 8), randn(gen, 2, 3, 37, 8), randn(gen, 2, 3, 37, 5)
    naive, naive_lse = moba_attention(q, k, v, 4, 3)
    varlen, varlen_lse = moba_attention_varlen(q, k, v, 4, 3)
    return {"naive": naive, "varlen": varlen, "naive_lse": naive_lse, "varlen_lse": varlen_lse}


@case(params=[("block_size", 0), ("top_k", 0)], ids=["block_size0", "top_k0"])
def bad_sizes_raise(which):
    name, value = which
    q = torch.zeros(1, 1, 6, 2, dtype=F64)
    args = {"block_size": 2, "top_k": 2, name: value}
    return {"result": select_blocks(q, q, args["block_size"], args["top_k"])}


@case
def select_shape_mismatch_raises():
    return {"result": select_blocks(torch.zeros(1, 1, 6, 2, dtype=F64), torch.zeros(1, 1, 6, 3, dtype=F64), 2, 2)}


@case(params=["naive", "varlen"], ids=["naive", "varlen"])
def mismatched_values_raise(impl):
    q = torch.zeros(1, 2, 6, 4, dtype=F64)
    return {"result": IMPLS[impl](q, q, torch.zeros(1, 2, 5, 4, dtype=F64), 2, 2)}


# ---------------------------------------------------------------- route_queries


@case(params=range(len(ROUTE)), compare="exact")
def route_matches_reference(i):
    c = ROUTE[i]
    layout = route_queries(c["selected"], c["block_size"])
    return {"query_rows": layout.query_rows, "cu_seqlens": layout.cu_seqlens, "selected": c["selected"],
            "block_size": c["block_size"]}


@case(compare="exact")
def route_of_the_gate():
    gen = torch.Generator().manual_seed(6)
    q, k = randn(gen, 2, 2, 10, 4), randn(gen, 2, 2, 10, 4)
    selected = select_blocks(q, k, 3, 3)
    layout = route_queries(selected, 3)
    return {"query_rows": layout.query_rows, "cu_seqlens": layout.cu_seqlens, "selected": selected,
            "block_size": 3}


@case
def route_not_bool_raises():
    return {"result": route_queries(torch.ones(1, 1, 8, 4, dtype=torch.int64), 2)}


@case
def route_wrong_block_count_raises():
    return {"result": route_queries(torch.ones(1, 1, 8, 3, dtype=torch.bool), 2)}


# ---------------------------------------------------------------- the layer and the model


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def layer_matches_reference(i):
    c = LAYER[i]
    layer = SelfAttention(ModelConfig(**c["config"]), c["kind"]).to(c["x"].dtype)
    layer.load_state_dict(c["state"])
    x = c["x"].clone().requires_grad_(True)
    out = layer(x)
    params = dict(layer.named_parameters())
    grads = torch.autograd.grad((out * c["cotangent"]).sum(), [x, *params.values()])
    p = prefix(c["x"].dtype)
    return {f"{p}out": out, f"{p}grad_x": grads[0], **{f"{p}grad.{n}": g for n, g in zip(params, grads[1:])}}


@case(params=[("varlen", 0), ("naive", 1)], ids=["varlen", "naive_hybrid"], rtol=1e-8, atol=1e-10)
def model_end_to_end(setting):
    impl, n_full = setting
    cfg = ModelConfig(vocab_size=16, d_model=16, n_heads=2, n_layers=2, d_ff=32, block_size=3, top_k=2,
                      moba_impl=impl, full_attention_layers=n_full)
    torch.manual_seed(0)
    model = MobaLM(cfg).to(F64)
    tokens = torch.randint(0, 16, (2, 14), generator=torch.Generator().manual_seed(7))
    losses = train(cfg, steps=3, batch_size=2, seq_len=16, seed=1, dtype=F64)
    return {"logits": model(tokens), "loss": model.loss(tokens), "train_losses": torch.tensor(losses, dtype=F64),
            "log_vocab": math.log(16)}
