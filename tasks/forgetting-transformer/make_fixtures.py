"""Regenerate tests/fixtures for forgetting-transformer/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/attention_cases.pt, shift_cases.pt and layer_cases.pt. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from fox.config import ModelConfig
from fox.forgetting import ForgettingAttention

F64, F32 = torch.float64, torch.float32

# B, H, T, D, Dv, dtype, scale, query multiplier, log-gate range (low, high)
ATTENTION = [
    (2, 3, 7, 4, 5, F64, None, 1.0, (-1.0, 0.0)),
    (1, 1, 1, 3, 2, F64, None, 1.0, (-1.0, 0.0)),  # a single token
    (1, 2, 16, 8, 8, F64, None, 1.0, (-0.3, 0.0)),  # a batch of one, slow forgetting
    (3, 2, 12, 2, 3, F64, 0.5, 2.0, (-3.0, -0.5)),  # custom scale, fast forgetting
    (2, 4, 9, 6, 1, F64, None, 4.0, (-0.05, 0.0)),  # sharp logits, almost no forgetting
    (1, 1, 24, 4, 4, F64, 1.0, 1.0, (-8.0, 0.0)),  # long range of gate values
    (2, 2, 10, 4, 4, F64, None, 1.0, (-1e-3, 0.0)),  # gates near one
    (2, 3, 11, 4, 6, F32, None, 1.0, (-1.0, 0.0)),  # float32
    (1, 2, 20, 8, 4, F32, 0.7, 2.0, (-4.0, 0.0)),  # float32, custom scale
]

# B, T, H, D, dtype, alpha range
SHIFT = [
    (2, 6, 3, 4, F64, (0.0, 1.0)),
    (1, 1, 2, 3, F64, (0.0, 1.0)),  # a single token
    (3, 9, 1, 2, F64, (0.2, 0.4)),
    (2, 5, 4, 1, F32, (0.0, 1.0)),
]

# block, B, T, d_model, n_heads, dtype, forget-gate bias mean
LAYER = [
    ("llama", 2, 7, 16, 2, F64, 2.0),
    ("pro", 2, 7, 16, 2, F64, 2.0),
    ("pro", 1, 1, 12, 3, F64, 2.0),  # a single token
    ("llama", 1, 12, 12, 4, F64, -1.0),  # fast forgetting
    ("pro", 3, 10, 24, 4, F64, 0.0),
    ("pro", 1, 16, 16, 1, F64, 4.0),  # one head
    ("llama", 2, 9, 16, 4, F32, 1.0),  # float32
    ("pro", 2, 9, 16, 4, F32, 1.0),  # float32
]


def attention_case(g: torch.Generator, cfg: tuple) -> dict:
    b, h, t, d, dv, dtype, scale, q_mult, (low, high) = cfg
    log_fgate = low + (high - low) * torch.rand(b, h, t, generator=g, dtype=F64)
    return {
        "q": (q_mult * torch.randn(b, h, t, d, generator=g, dtype=F64)).to(dtype),
        "k": torch.randn(b, h, t, d, generator=g, dtype=F64).to(dtype),
        "v": torch.randn(b, h, t, dv, generator=g, dtype=F64).to(dtype),
        "log_fgate": log_fgate.to(dtype),
        "scale": scale,
        "cotangent": torch.randn(b, h, t, dv, generator=g, dtype=F64).to(dtype),
    }


def shift_case(g: torch.Generator, cfg: tuple) -> dict:
    b, t, h, d, dtype, (low, high) = cfg
    return {
        "x": torch.randn(b, t, h, d, generator=g, dtype=F64).to(dtype),
        "alpha": (low + (high - low) * torch.rand(b, t, h, generator=g, dtype=F64)).to(dtype),
        "cotangent": torch.randn(b, t, h, d, generator=g, dtype=F64).to(dtype),
    }


def layer_case(g: torch.Generator, cfg: tuple) -> dict:
    block, b, t, d_model, n_heads, dtype, fgate_bias = cfg
    config = {"d_model": d_model, "n_heads": n_heads, "block": block, "attention": "forgetting"}
    module = ForgettingAttention(ModelConfig(**config))
    state = {}
    for name, param in module.state_dict().items():
        if name.endswith("norm.weight"):
            value = 1.0 + 0.3 * torch.randn(param.shape, generator=g, dtype=F64)
        elif name == "fgate_proj.bias":
            value = fgate_bias + torch.randn(param.shape, generator=g, dtype=F64)
        elif name.endswith("bias"):
            value = torch.randn(param.shape, generator=g, dtype=F64)
        else:
            value = torch.randn(param.shape, generator=g, dtype=F64) / param.shape[-1] ** 0.5
        state[name] = value.to(dtype)
    return {
        "config": config,
        "state": state,
        "x": torch.randn(b, t, d_model, generator=g, dtype=F64).to(dtype),
        "cotangent": torch.randn(b, t, d_model, generator=g, dtype=F64).to(dtype),
    }


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(20250303)
    torch.save([attention_case(g, c) for c in ATTENTION], out / "attention_cases.pt")
    torch.save([shift_case(g, c) for c in SHIFT], out / "shift_cases.pt")
    torch.save([layer_case(g, c) for c in LAYER], out / "layer_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
