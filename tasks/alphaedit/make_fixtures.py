"""Regenerate tests/fixtures for alphaedit/1 (inputs and options only; the reference's outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/alphaedit_cases.pt: the pre-trained model's weights and a dict of case lists. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from alphaedit.config import PretrainConfig
from edit import plan_edits
from train import build


def random_psd(g: torch.Generator, d: int, eigenvalues: torch.Tensor) -> torch.Tensor:
    """Q diag(eigenvalues) Q^T with a random orthogonal Q, float64."""
    q, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))
    return (q * eigenvalues) @ q.T


def projector_cases(g: torch.Generator) -> list[dict]:
    cases = []
    # eigenvalues on a log scale with no eigenvalue within a factor 1.25 of the threshold
    for d, n_null, threshold in ((1, 1, 1.0), (1, 0, 1.0), (3, 1, 0.5), (8, 3, 1e-2), (8, 6, 2.0), (24, 10, 5.0),
                                 (40, 25, 1.0), (40, 0, 1e-3), (16, 16, 10.0)):
        low = threshold * torch.exp(-torch.rand(n_null, generator=g, dtype=torch.float64) * 6 - 0.25)
        high = threshold * torch.exp(torch.rand(d - n_null, generator=g, dtype=torch.float64) * 6 + 0.25)
        cov = random_psd(g, d, torch.cat([low, high])[torch.randperm(d, generator=g)])
        cov = (cov + cov.T) / 2
        for dtype in (torch.float64, torch.float32):
            cases.append({"cov": cov.to(dtype), "threshold": threshold, "n_null": n_null})
    # low rank: K0 K0^T of 5 random keys in 12 dimensions (7 exact zero eigenvalues)
    k0 = torch.randn(12, 5, generator=g, dtype=torch.float64)
    cases.append({"cov": k0 @ k0.T, "threshold": 1e-6, "n_null": 7})
    return cases


def delta_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for d0, d1, u, n_null, prev, reg in ((1, 1, 1, 1, 0, 1.0), (5, 4, 1, 3, 0, 1.0), (5, 4, 3, 5, 2, 1.0),
                                         (24, 16, 7, 10, 5, 1.0), (24, 16, 7, 10, 5, 0.3), (12, 3, 4, 6, 20, 10.0),
                                         (32, 8, 40, 20, 0, 2.5), (16, 16, 2, 0, 3, 1.0)):
        q, _ = torch.linalg.qr(torch.randn(d0, d0, generator=g, dtype=torch.float64))
        projector = q[:, :n_null] @ q[:, :n_null].T
        kp = torch.randn(d0, prev, generator=g, dtype=torch.float64) * 1.5
        for dtype in (torch.float64, torch.float32):
            cases.append({"resid": torch.randn(d1, u, generator=g, dtype=torch.float64).to(dtype),
                          "keys": (torch.randn(d0, u, generator=g, dtype=torch.float64) * 2).to(dtype),
                          "projector": projector.to(dtype), "prev_cov": (kp @ kp.T).to(dtype), "reg_weight": reg})
    return cases


def corpus_cases(world, g: torch.Generator) -> list[dict]:
    facts = world.facts()
    cases = []
    for n_facts, n_random in ((20, 8), (0, 5), (72, 32), (1, 0)):
        corpus = world.preserved_corpus(facts[torch.randperm(facts.shape[0], generator=g)[:n_facts]], n_random, g)
        cases.append({"tokens": corpus.tokens, "mask": corpus.mask})
    return cases


def edit_cases(world) -> list[dict]:
    """Edit plans: batches of requests, the preserved corpus of the untouched facts, the editor's settings."""
    cases = []
    plans = (
        # name, batches, batch size, layers, threshold, reg, dtype, seed
        ("three-layers", 1, 4, (0, 1, 2), 5.0, 1.0, "float64", 0),
        ("one-layer", 1, 4, (1,), 5.0, 1.0, "float64", 1),
        ("upper-layers", 1, 3, (2, 3), 2.0, 1.0, "float64", 2),
        ("all-layers-one-request", 1, 1, (0, 1, 2, 3), 5.0, 1.0, "float64", 3),
        ("reg-and-threshold", 1, 5, (1, 2), 20.0, 10.0, "float64", 4),
        ("projector-is-identity", 1, 4, (0, 1), 1e6, 1.0, "float64", 5),
        ("projector-is-zero", 1, 3, (0, 1, 2), 1e-6, 1.0, "float64", 6),
        ("sequential", 3, 3, (0, 1, 2), 5.0, 1.0, "float64", 7),
        ("sequential-one-layer", 3, 2, (2,), 10.0, 0.5, "float64", 8),
        ("float32", 2, 4, (0, 1, 2), 5.0, 1.0, "float32", 9),
    )
    for name, n_batches, size, layers, threshold, reg, dtype, seed in plans:
        batches, untouched = plan_edits(world, n_batches, size, seed)
        corpus = world.preserved_corpus(untouched, 16, torch.Generator().manual_seed(seed + 100))
        cases.append({"name": name, "layers": list(layers), "threshold": threshold, "reg_weight": reg,
                      "dtype": dtype, "corpus_tokens": corpus.tokens, "corpus_mask": corpus.mask,
                      "batches": [{"tokens": b.tokens, "subject_pos": b.subject_pos, "targets": b.targets}
                                  for b in batches]})
    return cases


def pretrained_weights() -> tuple[dict[str, torch.Tensor], object]:
    """The pre-trained model's float32 weights: trained in float64, then rounded to multiples of 2**-12.

    Training amplifies last-bit differences between hosts' matrix products (300 Adam steps); in float64 they
    stay far below the rounding step, so every host stores the same weights."""
    torch.set_default_dtype(torch.float64)
    try:
        model, world = build(PretrainConfig())
    finally:
        torch.set_default_dtype(torch.float32)
    weights = {k: (torch.round(v.detach() * 4096) / 4096).float() for k, v in model.state_dict().items()}
    return weights, world


def main(out_dir: Path) -> None:
    torch.set_num_threads(1)
    weights, world = pretrained_weights()
    g = torch.Generator().manual_seed(2024)
    cases = {"model": weights,
             "projector": projector_cases(g), "delta": delta_cases(g), "corpus": corpus_cases(world, g),
             "edit": edit_cases(world)}
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out_dir / "alphaedit_cases.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
