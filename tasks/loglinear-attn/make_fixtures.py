"""Writes the probe's input fixtures (inputs only, never an output): python make_fixtures.py OUT_DIR."""
from __future__ import annotations

import sys
from pathlib import Path

import torch


def attention_case(g: torch.Generator, B: int, T: int, H: int, K: int, V: int, NL: int, chunk_size: int,
                   decay: str = "mixed", dtype: torch.dtype = torch.float64) -> dict:
    f = torch.float64
    q = torch.randn(B, T, H, K, generator=g, dtype=f)
    k = torch.randn(B, T, H, K, generator=g, dtype=f)
    v = torch.randn(B, T, H, V, generator=g, dtype=f)
    if decay == "none":
        log_a = torch.zeros(B, T, H, dtype=f)
    elif decay == "strong":
        log_a = -3.0 - 2.0 * torch.rand(B, T, H, generator=g, dtype=f)
    else:
        log_a = -torch.rand(B, T, H, generator=g, dtype=f) * torch.rand(1, 1, H, generator=g, dtype=f)
    lam = torch.rand(B, T, H, NL, generator=g, dtype=f) * 2.0
    return {"q": q.to(dtype), "k": k.to(dtype), "v": v.to(dtype), "log_a": log_a.to(dtype), "lam": lam.to(dtype),
            "chunk_size": chunk_size}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(1234)
    specs = [
        # B, T, H, K, V, NL, chunk_size, decay, dtype
        (1, 1, 1, 2, 3, 1, 1, "mixed", torch.float64),
        (2, 2, 1, 3, 2, 2, 1, "mixed", torch.float64),
        (1, 3, 2, 2, 2, 3, 2, "mixed", torch.float64),
        (2, 5, 2, 3, 4, 4, 2, "mixed", torch.float64),
        (1, 8, 1, 4, 3, 4, 4, "none", torch.float64),
        (2, 13, 2, 3, 2, 6, 4, "mixed", torch.float64),
        (1, 16, 2, 2, 3, 5, 8, "mixed", torch.float64),
        (2, 21, 1, 3, 3, 6, 4, "strong", torch.float64),
        (1, 11, 3, 2, 2, 5, 16, "mixed", torch.float64),
        (2, 19, 2, 4, 3, 7, 2, "mixed", torch.float64),
        (2, 12, 2, 4, 3, 5, 4, "mixed", torch.float32),
        (1, 9, 1, 3, 2, 5, 2, "none", torch.float32),
    ]
    cases = [attention_case(g, *s) for s in specs]
    torch.save(cases, out / "attention_cases.pt")
    merge = []
    for NL, K, V in [(5, 2, 3), (6, 1, 2)]:
        merge.append({"states": torch.randn(2, 3, NL, K, V, generator=g, dtype=torch.float64)})
    torch.save(merge, out / "merge_cases.pt")
    delta = []
    for B, T, H, K, V, NL, decay, dtype in [(1, 1, 1, 2, 2, 1, "mixed", torch.float64),
                                            (2, 4, 2, 3, 2, 3, "mixed", torch.float64),
                                            (1, 7, 1, 4, 3, 4, "none", torch.float64),
                                            (2, 12, 2, 3, 3, 5, "mixed", torch.float64),
                                            (1, 9, 2, 3, 2, 5, "strong", torch.float64),
                                            (2, 10, 1, 4, 2, 5, "mixed", torch.float32)]:
        c = attention_case(g, B, T, H, K, V, NL, 1, decay, torch.float64)
        c["k"] = torch.nn.functional.normalize(c["k"], dim=-1)
        c["beta"] = torch.rand(B, T, H, generator=g, dtype=torch.float64)
        delta.append({n: x.to(dtype) if isinstance(x, torch.Tensor) else x for n, x in c.items()})
    torch.save(delta, out / "delta_cases.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
