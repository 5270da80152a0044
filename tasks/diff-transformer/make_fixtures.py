"""Regenerate tests/fixtures for diff-transformer/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/layer_cases.pt and model_cases.pt: configurations, weights (drawn here, by name)
and inputs. Deterministic.
"""
from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path

import torch

from difft.config import ModelConfig
from difft.model import DiffLM

F64, F32 = torch.float64, torch.float32

# n_heads, head_dim, layer, B, T, dtype, norm_eps, rope_base, chunks of T for the cached run
LAYER = [
    (2, 4, 1, 2, 7, F64, 1e-5, 10000.0, (3, 1, 3)),
    (1, 6, 2, 1, 5, F64, 1e-5, 10000.0, (1, 1, 1, 1, 1)),  # one head, a batch of one, token by token
    (3, 2, 4, 2, 9, F64, 1e-6, 100.0, (4, 5)),
    (2, 8, 12, 3, 6, F64, 1e-5, 10000.0, (6,)),  # a deep layer: lambda_init close to 0.8
    (4, 4, 3, 1, 1, F64, 1e-5, 10000.0, (1,)),  # a single token
    (2, 4, 7, 2, 12, F64, 1e-3, 500.0, (2, 5, 5)),
    (2, 4, 2, 2, 8, F32, 1e-5, 10000.0, (5, 3)),  # float32
    (1, 8, 5, 1, 10, F32, 1e-5, 10000.0, (1, 9)),
]

# n_heads, head_dim, n_layers, B, T, chunks, dtype
MODEL = [
    (2, 4, 3, 2, 10, (4, 1, 5), F64),
    (1, 6, 2, 1, 7, (1, 1, 1, 1, 1, 1, 1), F64),
    (3, 2, 4, 2, 9, (9,), F64),
    (2, 4, 2, 2, 8, (3, 5), F32),
]


def random_state(module: torch.nn.Module, g: torch.Generator) -> dict[str, torch.Tensor]:
    """Every parameter redrawn by name: projections ~ N(0, 1/fan_in), lambda vectors ~ N(0, 0.3^2), norm gains
    ~ 1 + N(0, 0.2^2)."""
    state = {}
    for name, p in module.named_parameters():
        if name.split(".")[-1].startswith("lambda_"):
            value = 0.3 * torch.randn(p.shape, generator=g, dtype=F64)
        elif p.ndim == 1:
            value = 1.0 + 0.2 * torch.randn(p.shape, generator=g, dtype=F64)
        else:
            value = torch.randn(p.shape, generator=g, dtype=F64) / p.shape[-1] ** 0.5
        state[name] = value.to(p.dtype)
    return state


def layer_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for h, d, layer, b, t, dtype, eps, base, chunks in LAYER:
        cfg = ModelConfig(d_model=2 * h * d, n_heads=h, head_dim=d, norm_eps=eps, rope_base=base)
        torch.manual_seed(0)
        attn = DiffLM(ModelConfig(**{**asdict(cfg), "n_layers": layer})).blocks[layer - 1].attn
        state = {k: v.to(dtype) for k, v in random_state(attn, g).items()}
        cases.append({"config": asdict(cfg), "layer": layer, "state": state,
                      "x": torch.randn(b, t, cfg.d_model, generator=g, dtype=F64).to(dtype),
                      "cotangent": torch.randn(b, t, cfg.d_model, generator=g, dtype=F64).to(dtype),
                      "chunks": list(chunks)})
    return cases


def model_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for h, d, n_layers, b, t, chunks, dtype in MODEL:
        cfg = ModelConfig(d_model=2 * h * d, n_heads=h, head_dim=d, n_layers=n_layers, d_ff=3 * h * d)
        torch.manual_seed(0)
        model = DiffLM(cfg)
        state = {k: v.to(dtype) for k, v in random_state(model, g).items()}
        cases.append({"config": asdict(cfg), "state": state,
                      "tokens": torch.randint(0, cfg.vocab_size, (b, t), generator=g), "chunks": list(chunks)})
    return cases


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(241005)
    torch.save(layer_cases(g), out / "layer_cases.pt")
    torch.save(model_cases(g), out / "model_cases.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
