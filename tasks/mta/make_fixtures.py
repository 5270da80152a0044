"""Regenerate tests/fixtures for mta/1 (inputs and options only; the reference's outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/mta_cases.pt. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from mta.config import ModelConfig
from mta.model import MTALM

F64 = torch.float64


def randn(g: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=F64) * scale


def conv_cases(g: torch.Generator) -> list[dict]:
    cases = []
    # B, H, Tq, Tk, c_q, c_k
    for b, h, tq, tk, cq, ck in ((1, 1, 1, 1, 1, 1), (2, 3, 6, 6, 3, 5), (1, 2, 5, 9, 4, 4), (2, 2, 7, 7, 2, 3),
                                 (1, 4, 8, 8, 6, 11), (1, 1, 4, 4, 1, 2), (1, 2, 3, 10, 3, 6)):
        for dtype in (F64, torch.float32):
            cases.append({"scores": randn(g, b, h, tq, tk).to(dtype), "kernel": randn(g, h, cq, ck).to(dtype)})
    return cases


def mix_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for b, h, tq, tk, ch in ((2, 4, 5, 5, 2), (1, 6, 3, 4, 3), (1, 3, 2, 2, 1), (1, 4, 3, 3, 4), (2, 6, 4, 4, 2)):
        for dtype in (F64, torch.float32):
            cases.append({"maps": randn(g, b, h, tq, tk).to(dtype), "kernel": randn(g, h // ch, ch, ch).to(dtype)})
    return cases


def weight_cases(g: torch.Generator) -> list[dict]:
    cases = []
    placements = [(kq, hc) for kq in ("none", "pre", "post") for hc in ("none", "pre", "post")]
    for n, (kq, hc) in enumerate(placements):
        t, first = (7, 0) if n % 2 == 0 else (9, 4)  # odd cases: rows are the last queries (a decoding step)
        cases.append({"scores": randn(g, 2, 4, t - first, t, scale=2.0), "first": first, "kq_conv": kq,
                      "head_conv": hc, "kq_kernel": randn(g, 4, 3, 5, scale=0.6),
                      "head_kernel": randn(g, 2, 2, 2, scale=0.8), "dtype": "float64"})
    for kq, hc in (("pre", "post"), ("post", "pre")):
        cases.append({"scores": randn(g, 1, 6, 6, 6, scale=2.0), "first": 0, "kq_conv": kq, "head_conv": hc,
                      "kq_kernel": randn(g, 6, 2, 4, scale=0.6), "head_kernel": randn(g, 2, 3, 3, scale=0.8),
                      "dtype": "float32"})
    return cases


def random_state(cfg: ModelConfig, g: torch.Generator) -> dict[str, torch.Tensor]:
    """A model's state with every weight random (kernels around the identity, norms' gains around one)."""
    torch.manual_seed(0)
    state = MTALM(cfg).double().state_dict()
    out = {}
    for name, value in state.items():
        if name.endswith("kq_kernel") or name.endswith("head_kernel"):
            out[name] = value + randn(g, *value.shape, scale=0.5)
        elif "norm" in name:
            out[name] = 1.0 + randn(g, *value.shape, scale=0.3)
        else:
            out[name] = randn(g, *value.shape, scale=1.0 / value.shape[-1] ** 0.5)
    return out


LAYER_CONFIGS = (
    # name, config overrides, layer index, dtype, cache chunks
    ("default-l2", {}, 2, "float64", (4, 1, 1, 3)),
    ("default-l1-no-kq", {}, 1, "float64", (2, 1, 6)),
    ("post-none-l4", dict(kq_conv="post", head_conv="none"), 4, "float64", (1, 1, 1, 1, 5)),
    ("none-pre-l3", dict(kq_conv="none", head_conv="pre", kq_every=1), 3, "float64", (5, 4)),
    ("post-pre-l1", dict(kq_conv="post", head_conv="pre", kq_every=1), 1, "float64", (3, 3, 3)),
    ("pre-none-cq4-ck4", dict(head_conv="none", kq_query=4, kq_key=4, kq_every=1), 3, "float64", (1, 2, 1, 5)),
    ("pre-post-cq1-groups4", dict(kq_query=1, kq_key=3, head_group=4, kq_every=1), 2, "float64", (6, 1, 2)),
    ("plain-attention", dict(kq_conv="none", head_conv="none", group_norm=False), 2, "float64", (3, 6)),
    ("pre-pre-l2", dict(head_conv="pre"), 2, "float64", (2, 2, 5)),
    ("post-post-l4", dict(kq_conv="post", head_conv="post"), 4, "float64", (5, 1, 3)),
    ("default-f32", {}, 2, "float32", (4, 1, 4)),
    ("post-pre-f32-no-norm", dict(kq_conv="post", head_conv="pre", group_norm=False, kq_every=1), 3, "float32",
     (2, 7)),
)


def layer_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for name, overrides, layer, dtype, chunks in LAYER_CONFIGS:
        cfg = ModelConfig(**overrides)
        state = random_state(cfg, g)
        prefix = f"blocks.{layer - 1}.attn."
        cases.append({"name": name, "config": overrides, "layer": layer, "dtype": dtype, "chunks": list(chunks),
                      "state": {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)},
                      "x": randn(g, 2, sum(chunks), cfg.d_model), "cotangent": randn(g, 2, sum(chunks), cfg.d_model)})
    return cases


def model_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for name, overrides, dtype in (("default", {}, "float64"), ("post-pre-every-layer",
                                   dict(kq_conv="post", head_conv="pre", kq_every=1, kq_query=2, kq_key=3), "float64"),
                                   ("pre-pre-f32", dict(head_conv="pre", kq_every=1), "float32")):
        cfg = ModelConfig(**overrides)
        cases.append({"name": name, "config": overrides, "dtype": dtype, "state": random_state(cfg, g),
                      "tokens": torch.randint(cfg.vocab_size, (2, 12), generator=g),
                      "other": torch.randint(cfg.vocab_size, (2, 12), generator=g), "cut": 7})
    return cases


def main(out_dir: str) -> None:
    g = torch.Generator().manual_seed(2025)
    cases = {"conv": conv_cases(g), "mix": mix_cases(g), "weights": weight_cases(g), "layer": layer_cases(g),
             "model": model_cases(g)}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "mta_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
