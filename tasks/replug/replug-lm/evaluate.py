"""Perplexity of the next token of held-out pairs: the frozen LM alone vs. REPLUG.

    python evaluate.py
"""
from __future__ import annotations

import torch

from replug.lm import next_token_logprobs
from replug.replug import ReplugLM
from train_retriever import build


@torch.no_grad()
def next_token_nll(seed: int = 0, dtype: torch.dtype = torch.float32) -> dict[str, float]:
    """Mean negative log-likelihood of the first token of each continuation, without and with retrieval."""
    lm, retriever, corpus, index, x, y, cfg = build(seed, dtype)
    model = ReplugLM(lm, retriever, index, corpus, cfg)
    first = y[:, :1]
    plain = -next_token_logprobs(lm, x).gather(-1, first).mean()
    augmented = -model.next_token_logprobs(x).gather(-1, first).mean()
    return {"lm": float(plain), "replug": float(augmented)}


if __name__ == "__main__":
    for name, nll in next_token_nll().items():
        print(f"{name}: next-token NLL {nll:.4f}")
