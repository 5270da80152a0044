"""Write the differential fixtures of the moverscore task from the reference implementation.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied.
Inputs only (embeddings, idf weights, n-gram orders, toy systems): the probe computes the outputs and the
reference's are stored outside the sandbox, in tests/expected/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from moverscore.data import SYSTEMS


def sentence(gen: torch.Generator, length: int, common: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    emb = torch.randn(length, common.shape[0], generator=gen, dtype=torch.float64) + common
    emb = emb * 10.0 ** torch.empty(length, 1, dtype=torch.float64).uniform_(-1, 1, generator=gen)
    idf = torch.empty(length, dtype=torch.float64).uniform_(0.05, 2.5, generator=gen)
    return emb, idf


def ngram_cases(gen: torch.Generator) -> list[dict]:
    cases = []
    for i in range(24):
        m = 1 + i % 7
        dim = [1, 2, 3, 5][i % 4]
        n = 1 + (i // 3) % 4
        emb = torch.randn(m, dim, generator=gen, dtype=torch.float64)
        weights = torch.empty(m, dtype=torch.float64).uniform_(0.0, 3.0, generator=gen)
        if i % 5 == 2:
            weights[0] = 0.0  # a zero-weight word still occupies its windows
        cases.append({"emb": emb, "weights": weights, "n": n})
    return cases


def score_cases(gen: torch.Generator) -> list[dict]:
    cases = []
    for i in range(40):
        dim = [2, 3, 4, 8, 16][i % 5]
        n = [1, 2, 3][(i // 5) % 3]
        m = int(torch.randint(1, 7, (1,), generator=gen))
        l = int(torch.randint(1, 7, (1,), generator=gen))
        if i % 8 == 3:
            m = 1  # a one-word reference
        common = torch.randn(dim, generator=gen, dtype=torch.float64) * [0.0, 0.5, 2.0][i % 3]
        ref_emb, ref_idf = sentence(gen, m, common)
        hyp_emb, hyp_idf = sentence(gen, l, common)
        cases.append({"ref_emb": ref_emb, "ref_idf": ref_idf, "hyp_emb": hyp_emb, "hyp_idf": hyp_idf,
                      "n_gram": n})
    return cases


def end_to_end_cases() -> list[dict]:
    """Which toy system is scored with which n-gram order (the probe builds the tokenizer and encoder)."""
    return [{"n_gram": n, "system": name} for n in (1, 2) for name in SYSTEMS]


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator().manual_seed(1909_02622)
    torch.save(ngram_cases(gen), out / "ngram_cases.pt")
    torch.save(score_cases(gen), out / "score_cases.pt")
    torch.save(end_to_end_cases(), out / "end_to_end.pt")


if __name__ == "__main__":
    main(sys.argv[1])
