"""Regenerate tests/fixtures for replug/1 (inputs and options only; the reference's outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/replug_cases.pt. Deterministic; every weight is a float64 random draw rounded to a multiple of
1/4096, so every host stores the same bytes.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from replug.config import LMConfig, RetrieverConfig
from replug.lm import TinyLM
from replug.retriever import DualEncoder

F64 = torch.float64


def rounded(t: torch.Tensor) -> torch.Tensor:
    return torch.round(t * 4096) / 4096


def randn(g: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    return rounded(torch.randn(*shape, generator=g, dtype=F64) * scale)


def lm_state(g: torch.Generator, vocab: int, d: int) -> dict[str, torch.Tensor]:
    """A peaked random LM (large output weights), so that documents change its predictions visibly."""
    torch.manual_seed(0)
    state = TinyLM(LMConfig(vocab_size=vocab, d_model=d)).double().state_dict()
    out = {}
    for name, value in state.items():
        scale = {"embed": 1.0, "rnn": 0.8, "head": 1.5}[name.split(".")[0]]
        out[name] = randn(g, *value.shape, scale=scale)
    return out


def retriever_state(g: torch.Generator, vocab: int, d: int) -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    state = DualEncoder(RetrieverConfig(vocab_size=vocab, d_embed=d)).double().state_dict()
    return {name: randn(g, *value.shape, scale=1.0 if name.startswith("embed") else 0.6)
            for name, value in state.items()}


def tokens(g: torch.Generator, vocab: int, *shape: int) -> torch.Tensor:
    return torch.randint(0, vocab, shape, generator=g)


def lsr_cases(g: torch.Generator) -> list[dict]:
    cases = []
    # B, k, gamma, beta
    for b, k, gamma, beta in ((1, 1, 1.0, 1.0), (1, 4, 0.5, 0.1), (3, 5, 0.1, 0.3), (4, 2, 2.0, 0.05),
                              (2, 8, 1.0, 1.0), (5, 3, 0.3, 0.02)):
        for dtype in (F64, torch.float32):
            scores = (torch.rand(b, k, generator=g, dtype=F64) * 2 - 1).to(dtype)
            logp = (-torch.rand(b, k, generator=g, dtype=F64) * 4 - 0.02).to(dtype)
            cases.append({"scores": scores, "lm_logprobs": logp, "gamma": gamma, "beta": beta})
    return cases


def ensemble_cases(g: torch.Generator) -> list[dict]:
    cases = []
    # vocab, d, B, k, Tx, Td, score scale
    for vocab, d, b, k, tx, td, sc in ((11, 16, 1, 1, 3, 4, 1.0), (11, 16, 2, 3, 4, 5, 1.0), (7, 8, 3, 4, 1, 2, 3.0),
                                       (13, 12, 1, 6, 5, 3, 0.5), (11, 16, 4, 2, 2, 6, 2.0)):
        for dtype in ("float64", "float32"):
            cases.append({"lm": lm_state(g, vocab, d), "vocab": vocab, "d": d, "x": tokens(g, vocab, b, tx),
                          "docs": tokens(g, vocab, b, k, td), "scores": randn(g, b, k, scale=sc), "dtype": dtype})
    return cases


def system(g: torch.Generator, vocab: int, n_docs: int, doc_len: int) -> dict:
    return {"lm": lm_state(g, vocab, 16), "retriever": retriever_state(g, vocab, 12), "vocab": vocab,
            "corpus": tokens(g, vocab, n_docs, doc_len)}


def replug_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for vocab, n_docs, doc_len, b, tx, ty, k in ((11, 12, 5, 3, 4, 3, 4), (9, 6, 3, 2, 2, 1, 1), (11, 9, 4, 4, 3, 2, 9),
                                                 (13, 10, 4, 2, 1, 4, 3)):
        cases.append({**system(g, vocab, n_docs, doc_len), "x": tokens(g, vocab, b, tx),
                      "y": tokens(g, vocab, b, ty), "k": k})
    return cases


def train_cases(g: torch.Generator) -> list[dict]:
    cases = []
    # name, vocab, n_docs, doc_len, n pairs, Tx, Ty, batch, k, gamma, beta, T, lr
    for name, vocab, n_docs, doc_len, n, tx, ty, bs, k, gamma, beta, t, lr in (
            ("T3-7steps", 11, 12, 5, 14, 4, 2, 2, 4, 0.5, 0.02, 3, 0.05),
            ("T1-ty1", 9, 10, 4, 8, 3, 1, 2, 3, 0.2, 0.1, 1, 0.1),
            ("T2-batch1-ty3", 11, 8, 3, 5, 2, 3, 1, 5, 1.0, 0.01, 2, 0.05),
            ("T10-never", 11, 12, 5, 12, 4, 2, 4, 4, 0.5, 0.05, 10, 0.05)):
        cases.append({"name": name, **system(g, vocab, n_docs, doc_len), "x": tokens(g, vocab, n, tx),
                      "y": tokens(g, vocab, n, ty), "batch": bs,
                      "cfg": {"k": k, "gamma": gamma, "beta": beta, "index_refresh": t, "lr": lr}})
    return cases


def main(out_dir: str) -> None:
    g = torch.Generator().manual_seed(20230130)
    cases = {"lsr": lsr_cases(g), "ensemble": ensemble_cases(g), "replug": replug_cases(g),
             "train": train_cases(g)}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "replug_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
