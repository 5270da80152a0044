"""Sampling synthetic responses y' ~ p_{theta_t}(. | x) from the opponent."""
from __future__ import annotations

import torch
import torch.nn as nn

from .sft_data import EOS, PAD, Responses


@torch.no_grad()
def sample_responses(
    model: nn.Module, prompts: torch.Tensor, max_new_tokens: int, generator: torch.Generator,
    temperature: float = 1.0,
) -> Responses:
    """Ancestral sampling until EOS or max_new_tokens; tokens after EOS are PAD and unmasked."""
    logits, state = model(prompts)
    batch = prompts.shape[0]
    done = torch.zeros(batch, dtype=torch.bool)
    tokens, mask = [], []
    next_logits = logits[:, -1]
    for _ in range(max_new_tokens):
        probs = torch.softmax(next_logits / temperature, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        tok = torch.where(done, torch.full_like(tok, PAD), tok)
        tokens.append(tok)
        mask.append(~done)
        done = done | (tok == EOS)
        step_logits, state = model(tok[:, None], state)
        next_logits = step_logits[:, -1]
    return Responses(torch.stack(tokens, 1), torch.stack(mask, 1))
