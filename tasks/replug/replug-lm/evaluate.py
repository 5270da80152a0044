"""Negative log-likelihood of held-out continuations: the frozen LM alone vs. REPLUG.

    python evaluate.py
"""
from __future__ import annotations

import torch

from replug.lm import continuation_logprob, next_token_logprobs
from replug.replug import ReplugLM
from train_retriever import build


@torch.no_grad()
def next_token_nll(seed: int = 0, dtype: torch.dtype = torch.float32) -> dict[str, float]:
    """Mean negative log-likelihood of the first token of each continuation and of whole continuations (per
    token), without and with retrieval."""
    lm, retriever, corpus, index, x, y, cfg = build(seed, dtype)
    model = ReplugLM(lm, retriever, index, corpus, cfg)
    first = y[:, :1]
    return {"lm": float(-next_token_logprobs(lm, x).gather(-1, first).mean()),
            "replug": float(-model.next_token_logprobs(x).gather(-1, first).mean()),
            "lm_per_token": float(-continuation_logprob(lm, x, y).mean() / y.shape[1]),
            "replug_per_token": float(-model.continuation_logprob(x, y).mean() / y.shape[1])}


if __name__ == "__main__":
    for name, nll in next_token_nll().items():
        print(f"{name}: NLL {nll:.4f}")
