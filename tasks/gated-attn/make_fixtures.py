"""Regenerate tests/fixtures for gated-attn/1 (inputs and options only; the reference's outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/gated_cases.pt. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from gated.attention import GatedAttention
from gated.config import ModelConfig
from gated.model import GatedLM

F64 = torch.float64


def randn(g: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=F64) * scale


def random_state(module: torch.nn.Module, g: torch.Generator, scale: float = 0.5) -> dict[str, torch.Tensor]:
    state = {}
    for name, p in module.state_dict().items():
        if name.endswith("norm.weight") or name.endswith("_norm.weight"):
            state[name] = 1.0 + randn(g, *p.shape, scale=0.2)
        else:
            state[name] = randn(g, *p.shape, scale=scale)
    return state


def layer_configs() -> list[tuple[str, dict, str]]:
    out = []
    for pos in ("sdpa", "value", "key", "query", "dense"):
        for gran in ("elementwise", "headwise"):
            for share in ("head_specific", "head_shared"):
                out.append((f"{pos}-{gran}-{share}", dict(gate_position=pos, gate_granularity=gran,
                                                          gate_sharing=share), "float64"))
    extra = [
        ("sdpa-silu", dict(gate_activation="silu"), "float64"),
        ("value-headwise-silu", dict(gate_position="value", gate_granularity="headwise", gate_activation="silu"),
         "float64"),
        ("sdpa-add", dict(gate_combine="add"), "float64"),
        ("key-headwise-shared-add-silu", dict(gate_position="key", gate_granularity="headwise",
                                              gate_sharing="head_shared", gate_combine="add",
                                              gate_activation="silu"), "float64"),
        ("query-add", dict(gate_position="query", gate_combine="add"), "float64"),
        ("dense-add", dict(gate_position="dense", gate_combine="add"), "float64"),
        ("sdpa-bias", dict(gate_bias=True), "float64"),
        ("value-bias-headwise", dict(gate_position="value", gate_bias=True, gate_granularity="headwise"), "float64"),
        ("sdpa-mha", dict(n_kv_heads=4), "float64"),
        ("value-mqa", dict(n_kv_heads=1), "float64"),
        ("key-mqa-elementwise", dict(n_kv_heads=1, gate_position="key"), "float64"),
        ("sdpa-wide-heads", dict(d_model=12, n_heads=6, n_kv_heads=2, head_dim=5), "float64"),
        ("value-wide-heads", dict(d_model=12, n_heads=6, n_kv_heads=3, head_dim=5, gate_position="value"),
         "float64"),
        ("none", dict(gate_position="none"), "float64"),
        ("sdpa-f32", dict(), "float32"),
        ("value-headwise-f32", dict(gate_position="value", gate_granularity="headwise"), "float32"),
        ("dense-f32", dict(gate_position="dense"), "float32"),
    ]
    return out + extra


def layer_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n, (name, kw, dtype) in enumerate(layer_configs()):
        cfg = ModelConfig(**kw)
        torch.manual_seed(0)
        layer = GatedAttention(cfg).double()
        b, t = (2, 6) if n % 3 else (1, 9)
        cases.append({"name": name, "config": kw, "dtype": dtype, "state": random_state(layer, g),
                      "x": randn(g, b, t, cfg.d_model), "cotangent": randn(g, b, t, cfg.d_model),
                      "gate_cotangent": randn(g, 4)})
    return cases


def apply_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for name, kw, dtype in layer_configs():
        cfg = ModelConfig(**kw)
        if cfg.gate_position == "none" or dtype != "float64":
            continue
        heads = cfg.n_heads if cfg.gate_position == "dense" else cfg.gated_heads()
        groups, width = cfg.gate_shape()
        cases.append({"name": name, "config": kw, "y": randn(g, 2, 3, heads, cfg.head_dim),
                      "scores": torch.rand(2, 3, groups, width, generator=g, dtype=F64)})
    return cases


def model_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for name, kw, dtype in (("sdpa", dict(), "float64"), ("none", dict(gate_position="none"), "float64"),
                            ("value-headwise", dict(gate_position="value", gate_granularity="headwise"), "float64"),
                            ("sdpa-f32", dict(n_layers=3), "float32")):
        cfg = ModelConfig(**kw)
        torch.manual_seed(0)
        model = GatedLM(cfg).double()
        cases.append({"name": name, "config": kw, "dtype": dtype, "state": random_state(model, g),
                      "tokens": torch.randint(cfg.vocab_size, (2, 10), generator=g)})
    return cases


def main(out_dir: str) -> None:
    g = torch.Generator().manual_seed(1234)
    cases = {"layer": layer_cases(g), "apply": apply_cases(g), "model": model_cases(g)}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "gated_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
