"""Regenerate tests/fixtures for blt-patching/1 (inputs and options only, never outputs of the targets).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/cases.pt and OUT_DIR/entropy_model.pt. Deterministic.

Patch layouts (patch_ids, n_patches, lengths) given to the pooling, cross-attention and encoder cases are
computed here with plain Python loops, not with the targets.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from blt.config import EncoderConfig, ModelConfig
from blt.local_encoder import LocalEncoder, PatchCrossAttention
from train import train_entropy_model

F64, F32 = torch.float64, torch.float32


def layout(starts: torch.Tensor) -> dict:
    """patch_ids, n_patches, lengths of a (B, T) bool start mask, by explicit loops."""
    ids, counts, all_lengths = [], [], []
    for row in starts.tolist():
        current, row_ids, lengths = -1, [], []
        for s in row:
            if s:
                current += 1
                lengths.append(0)
            row_ids.append(current)
            lengths[current] += 1
        ids.append(row_ids)
        counts.append(current + 1)
        all_lengths.append(lengths)
    p = max(counts)
    padded = [lengths + [0] * (p - len(lengths)) for lengths in all_lengths]
    return {"patch_ids": torch.tensor(ids), "n_patches": torch.tensor(counts), "lengths": torch.tensor(padded)}


def random_starts(g: torch.Generator, b: int, t: int, rate: float) -> torch.Tensor:
    starts = torch.rand(b, t, generator=g) < rate
    starts[:, 0] = True
    return starts


def randomise(module: torch.nn.Module, g: torch.Generator, scale: float = 0.5) -> dict:
    """A state dict with every parameter drawn at random (LayerNorm gains around 1)."""
    state = {}
    for name, p in module.state_dict().items():
        noise = scale * torch.randn(p.shape, generator=g, dtype=F64)
        state[name] = 1.0 + noise if "norm" in name and name.endswith("weight") else noise
    return state


# (B, T, V, logit scale, dtype)
ENTROPY = [(2, 5, 256, 1.0, F64), (1, 1, 7, 2.0, F64), (3, 4, 3, 10.0, F64), (2, 6, 256, 4.0, F32),
           (1, 3, 5, 600.0, F64)]
# (B, T, method, threshold, entropy scale)
STARTS = [(3, 12, "global", 1.5, 3.0), (2, 9, "monotonic", 0.4, 3.0), (1, 1, "global", 1.0, 3.0),
          (1, 1, "monotonic", 1.0, 3.0), (2, 16, "monotonic", -0.2, 1.0), (4, 7, "global", 5.0, 3.0)]
# (B, T, start rate)
LAYOUTS = [(3, 10, 0.4), (1, 1, 0.5), (2, 8, 1.0), (2, 9, 0.0), (4, 20, 0.2)]
# (B, T, n, table size, pad byte)
NGRAMS = [(2, 9, 3, 97, 0), (1, 12, 8, 500_000, 0), (2, 5, 1, 13, 0), (3, 7, 5, 2**31, 32), (1, 1, 4, 1000, 9),
          (2, 10, 6, 2**31 - 1, 255), (1, 6, 2, 7919, 0)]
# encoder config overrides, B, T, dtype
EMBED = [({}, 2, 9, F64), ({"ngram_sizes": (1,), "hash_table_size": 11}, 1, 6, F64),
         ({"ngram_sizes": (), "d_local": 4}, 2, 3, F64), ({"ngram_sizes": (2, 8), "hash_table_size": 5003}, 2, 10, F64),
         ({"ngram_sizes": (3, 4), "ngram_pad_byte": 65}, 1, 1, F64), ({}, 2, 7, F32)]
# B, T, D, start rate, mode, dtype
POOL = [(2, 9, 3, 0.4, "max", F64), (2, 9, 3, 0.4, "mean", F64), (1, 1, 4, 0.5, "max", F64),
        (1, 1, 4, 0.5, "mean", F64), (3, 12, 2, 0.25, "max", F64), (3, 12, 2, 0.25, "mean", F64),
        (2, 6, 5, 1.0, "mean", F64), (2, 8, 3, 0.3, "max", F32), (2, 8, 3, 0.3, "mean", F32)]
# encoder config overrides, B, T, start rate, dtype
CROSS = [({"d_local": 4, "cross_heads": 2}, 2, 8, 0.35, F64), ({"d_local": 6, "cross_heads": 1}, 1, 5, 0.5, F64),
         ({"d_local": 3, "cross_heads": 3, "local_heads": 1}, 3, 10, 0.2, F64), ({"d_local": 4, "cross_heads": 2}, 1, 1, 0.5, F64),
         ({"d_local": 4, "cross_heads": 2}, 2, 6, 1.0, F64), ({"d_local": 4, "cross_heads": 3}, 2, 9, 0.3, F32)]
ENCODER = [({"d_local": 8, "cross_heads": 2, "n_layers": 2, "window": 4, "pooling": "max"}, 2, 12, 0.3, F64),
           ({"d_local": 8, "cross_heads": 2, "n_layers": 2, "window": 4, "pooling": "mean"}, 2, 12, 0.3, F64),
           ({"d_local": 6, "cross_heads": 3, "local_heads": 3, "n_layers": 1, "pooling": "max",
             "ngram_sizes": (2, 3)}, 1, 9, 0.4, F64),
           ({"d_local": 4, "cross_heads": 2, "n_layers": 3, "window": 2, "pooling": "mean"}, 3, 7, 0.5, F64),
           ({"d_local": 4, "cross_heads": 2, "n_layers": 0, "pooling": "max"}, 2, 6, 0.4, F64),
           ({"d_local": 4, "cross_heads": 2, "n_layers": 2, "pooling": "max"}, 1, 1, 0.5, F64),
           ({"d_local": 8, "cross_heads": 2, "n_layers": 2, "window": 4, "pooling": "max"}, 2, 10, 0.3, F32),
           ({"d_local": 8, "cross_heads": 2, "n_layers": 2, "window": 4, "pooling": "mean"}, 2, 10, 0.3, F32)]


def encoder_config(overrides: dict) -> dict:
    base = {"d_local": 8, "local_heads": 2, "n_layers": 2, "window": 8, "ngram_sizes": (3, 4, 5),
            "hash_table_size": 97, "ngram_pad_byte": 0, "cross_heads": 2, "pooling": "max", "norm_eps": 1e-5}
    return {**base, **overrides}


def tokens(g: torch.Generator, b: int, t: int) -> torch.Tensor:
    return torch.randint(0, 256, (b, t), generator=g)


def build_cases(g: torch.Generator) -> dict:
    cases: dict[str, list] = {k: [] for k in ("entropy", "starts", "layouts", "ngrams", "embed", "pool", "cross",
                                              "encoder")}
    for b, t, v, scale, dtype in ENTROPY:
        logits = scale * torch.randn(b, t, v, generator=g, dtype=F64)
        cases["entropy"].append({"logits": logits.to(dtype), "cotangent": torch.randn(b, t, generator=g).to(dtype)})
    for b, t, method, threshold, scale in STARTS:
        cases["starts"].append({"entropies": scale * torch.rand(b, t, generator=g, dtype=F64), "method": method,
                                "threshold": threshold})
    for b, t, rate in LAYOUTS:
        cases["layouts"].append(random_starts(g, b, t, rate))
    for b, t, n, size, pad in NGRAMS:
        cases["ngrams"].append({"tokens": tokens(g, b, t), "n": n, "table_size": size, "pad": pad})
    for overrides, b, t, dtype in EMBED:
        cfg = EncoderConfig(**encoder_config(overrides))
        module = LocalEncoder(cfg).embed
        cases["embed"].append({"config": encoder_config(overrides), "state": randomise(module, g, 1.0),
                               "tokens": tokens(g, b, t), "dtype": str(dtype),
                               "cotangent": torch.randn(b, t, cfg.d_local, generator=g, dtype=F64)})
    for b, t, d, rate, mode, dtype in POOL:
        lay = layout(random_starts(g, b, t, rate))
        p = int(lay["n_patches"].max())
        cases["pool"].append({"states": torch.randn(b, t, d, generator=g, dtype=F64).to(dtype), "mode": mode, **lay,
                              "cotangent": torch.randn(b, p, d, generator=g, dtype=F64).to(dtype)})
    for overrides, b, t, rate, dtype in CROSS:
        cfg = EncoderConfig(**encoder_config(overrides))
        starts = random_starts(g, b, t, rate)
        lay = layout(starts)
        p = int(lay["n_patches"].max())
        cases["cross"].append({"config": encoder_config(overrides), "state": randomise(PatchCrossAttention(cfg), g),
                               "patch_states": torch.randn(b, p, cfg.d_patch, generator=g, dtype=F64).to(dtype),
                               "byte_states": torch.randn(b, t, cfg.d_local, generator=g, dtype=F64).to(dtype),
                               **lay, "cotangent": torch.randn(b, p, cfg.d_patch, generator=g, dtype=F64).to(dtype)})
    for overrides, b, t, rate, dtype in ENCODER:
        cfg = EncoderConfig(**encoder_config(overrides))
        starts = random_starts(g, b, t, rate)
        lay = layout(starts)
        p = int(lay["n_patches"].max())
        cases["encoder"].append({"config": encoder_config(overrides), "state": randomise(LocalEncoder(cfg), g, 0.4),
                                 "tokens": tokens(g, b, t), **lay, "dtype": str(dtype),
                                 "cot_p": torch.randn(b, p, cfg.d_patch, generator=g, dtype=F64),
                                 "cot_h": torch.randn(b, t, cfg.d_local, generator=g, dtype=F64)})
    return cases


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(1234)
    torch.save(build_cases(g), out / "cases.pt")
    # the entropy model of the end-to-end cases: ByteLM trained briefly on the synthetic text (float64)
    entropy_model = train_entropy_model(ModelConfig(), steps=40, dtype=F64)
    torch.save(entropy_model.state_dict(), out / "entropy_model.pt")


if __name__ == "__main__":
    main(sys.argv[1])
