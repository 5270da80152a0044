"""Sampling one reasoning trace from the toy model, with an optional early-stop rule."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from deepconf.answers import extract_answer
from deepconf.config import SamplingConfig
from deepconf.toy_lm import ToyLM
from deepconf.trace import Trace
from deepconf.vocab import EOS

StopRule = Callable[[torch.Tensor], bool]
"""Called with the (V,) float64 log-probabilities of each token's distribution right after that token is
sampled (the trace's last token included); returning True stops the trace there."""


def sample_trace(lm: ToyLM, prompt: Sequence[int], generator: torch.Generator, cfg: SamplingConfig,
                 stop: StopRule | None = None) -> Trace:
    """Sample one trace after `prompt`: up to cfg.max_new_tokens tokens, ending at EOS or when `stop` says so.

    Every token is drawn with one `torch.multinomial` call on `generator`, so traces sampled one after another
    from the same generator are reproducible.
    """
    tokens: list[int] = []
    rows: list[torch.Tensor] = []
    stopped = False
    with torch.no_grad():
        state = lm.start(prompt)
        for _ in range(cfg.max_new_tokens):
            logprobs = torch.log_softmax(lm.next_logits(state) / cfg.temperature, dim=-1)
            token = int(torch.multinomial(logprobs.exp(), 1, generator=generator))
            tokens.append(token)
            rows.append(logprobs)
            if stop is not None and stop(logprobs):
                stopped = True
                break
            if token == EOS:
                break
            state = lm.advance(state, token)
    logprob_rows = torch.stack(rows) if rows else torch.zeros(0, lm.vocab_size, dtype=torch.float64)
    return Trace(tokens, logprob_rows, extract_answer(tokens), stopped)


def sample_traces(lm: ToyLM, prompt: Sequence[int], generator: torch.Generator, cfg: SamplingConfig,
                  n: int) -> list[Trace]:
    """`n` traces sampled one after another, without early stopping."""
    return [sample_trace(lm, prompt, generator, cfg) for _ in range(n)]
