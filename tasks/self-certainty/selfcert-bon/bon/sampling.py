"""Sampling N responses to one prompt from the toy model, all N at once."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from bon.config import SamplingConfig
from bon.toy_lm import ToyLM
from bon.vocab import BOS, EOS, PAD

Observer = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], None]
"""Called once per generation step with (logits, tokens, active):
logits: (N, V) float64, the model's logits (before the temperature) of the distribution each response's token of
this step is drawn from; tokens: (N,) int64, the token each active response drew (PAD for the others);
active: (N,) bool, the responses that drew a token at this step (those that have not ended)."""


def sample_responses(model: ToyLM, prompt: Sequence[int], n: int, cfg: SamplingConfig,
                     generator: torch.Generator, observer: Observer | None = None) -> list[list[int]]:
    """N responses to `prompt`: up to cfg.max_new_tokens tokens each, the last one EOS if the response ended.

    The model reads [BOS, *prompt]; at every step each unfinished response draws its next token from
    softmax(logits / cfg.temperature) with one `torch.multinomial` call on `generator` for all of them, so a
    call is reproducible from the generator's state.

    Raises:
        ValueError: if n < 1 or the temperature is not positive.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if cfg.temperature <= 0:
        raise ValueError(f"temperature must be positive, got {cfg.temperature}")
    responses: list[list[int]] = [[] for _ in range(n)]
    with torch.no_grad():
        state = model.init_state(n)
        for tok in (BOS, *prompt):
            state, logits = model.step(state, torch.full((n,), tok, dtype=torch.long))
        active = torch.ones(n, dtype=torch.bool)
        for _ in range(cfg.max_new_tokens):
            probs = torch.softmax(logits[active] / cfg.temperature, dim=-1)
            tokens = torch.full((n,), PAD, dtype=torch.long)
            tokens[active] = torch.multinomial(probs, 1, generator=generator).squeeze(1)
            if observer is not None:
                observer(logits, tokens, active.clone())
            for i in active.nonzero().squeeze(1).tolist():
                responses[i].append(int(tokens[i]))
            active = active & (tokens != EOS)
            if not bool(active.any()):
                break
            state, logits = model.step(state, tokens)
    return responses
