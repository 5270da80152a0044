"""Regenerate tests/fixtures for mla/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/layer_cases.pt and attend_cases.pt. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from mla.attention import MultiHeadLatentAttention
from mla.config import ModelConfig

F64, F32 = torch.float64, torch.float32

# config overrides, B, T, dtype, cached prefix length for decode, decode chunk sizes after the prefix
LAYER = [
    (dict(d_model=16, n_heads=2, head_dim=4, rope_head_dim=4, kv_lora_rank=6, q_lora_rank=8), 2, 9, F64, 4,
     [1, 2, 2]),
    (dict(d_model=24, n_heads=3, head_dim=6, rope_head_dim=2, kv_lora_rank=10, q_lora_rank=12), 1, 12, F64, 0,
     [5, 1, 6]),
    (dict(d_model=12, n_heads=1, head_dim=8, rope_head_dim=6, kv_lora_rank=4, q_lora_rank=5), 3, 7, F64, 6, [1]),
    (dict(d_model=16, n_heads=4, head_dim=3, rope_head_dim=8, kv_lora_rank=12, q_lora_rank=6), 2, 1, F64, 0, [1]),
    (dict(d_model=20, n_heads=5, head_dim=4, rope_head_dim=4, kv_lora_rank=8, q_lora_rank=10, rope_base=50.0), 1,
     16, F64, 10, [3, 3]),
    (dict(d_model=16, n_heads=2, head_dim=4, rope_head_dim=4, kv_lora_rank=6, q_lora_rank=8), 2, 10, F32, 3,
     [4, 1, 2]),
]

# config overrides, B, T queries, L tokens, dtype
ATTEND = [
    (dict(d_model=16, n_heads=2, head_dim=4, rope_head_dim=4, kv_lora_rank=6, q_lora_rank=8), 2, 7, 7, F64),
    (dict(d_model=16, n_heads=3, head_dim=5, rope_head_dim=2, kv_lora_rank=7, q_lora_rank=8), 1, 3, 11, F64),
    (dict(d_model=16, n_heads=2, head_dim=4, rope_head_dim=6, kv_lora_rank=5, q_lora_rank=8), 2, 1, 9, F64),
    (dict(d_model=16, n_heads=1, head_dim=4, rope_head_dim=4, kv_lora_rank=6, q_lora_rank=8), 1, 1, 1, F64),
    (dict(d_model=16, n_heads=4, head_dim=4, rope_head_dim=4, kv_lora_rank=6, q_lora_rank=8), 2, 5, 8, F32),
]


def random_state(g: torch.Generator, module: torch.nn.Module, dtype: torch.dtype) -> dict:
    state = {}
    for name, param in module.state_dict().items():
        if name.endswith("norm.weight"):
            value = 1.0 + 0.3 * torch.randn(param.shape, generator=g, dtype=F64)
        else:
            value = torch.randn(param.shape, generator=g, dtype=F64) / param.shape[-1] ** 0.5
        state[name] = value.to(dtype)
    return state


def layer_case(g: torch.Generator, cfg: tuple) -> dict:
    config, b, t, dtype, prefix, chunks = cfg
    module = MultiHeadLatentAttention(ModelConfig(**config))
    return {
        "config": config, "state": random_state(g, module, dtype), "prefix": prefix, "chunks": chunks,
        "h": torch.randn(b, t, config["d_model"], generator=g, dtype=F64).to(dtype),
        "cotangent": torch.randn(b, t, config["d_model"], generator=g, dtype=F64).to(dtype),
        # a cache of `prefix` tokens that no forward pass produced (decode must use it as it is)
        "cache_latent": torch.randn(b, prefix, config["kv_lora_rank"], generator=g, dtype=F64).to(dtype),
        "cache_k_rope": torch.randn(b, prefix, config["rope_head_dim"], generator=g, dtype=F64).to(dtype),
    }


def attend_case(g: torch.Generator, cfg: tuple) -> dict:
    config, b, t, length, dtype = cfg
    module = MultiHeadLatentAttention(ModelConfig(**config))
    h, dh, dr = config["n_heads"], config["head_dim"], config["rope_head_dim"]

    def rand(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=F64).to(dtype)

    return {
        "config": config, "state": random_state(g, module, dtype),
        "q_c": rand(b, h, t, dh), "q_rope": rand(b, h, t, dr),
        "latent": rand(b, length, config["kv_lora_rank"]), "k_rope": rand(b, length, dr),
        "cotangent": rand(b, h, t, dh),
    }


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(20240507)
    torch.save([layer_case(g, c) for c in LAYER], out / "layer_cases.pt")
    torch.save([attend_case(g, c) for c in ATTEND], out / "attend_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
