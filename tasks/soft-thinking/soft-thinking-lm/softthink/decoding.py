"""Ordinary (discrete) decoding: greedy continuation of a sequence of input embeddings."""
from __future__ import annotations

import torch

from .model import TinyLM


@torch.no_grad()
def greedy_continue(model: TinyLM, embeds: torch.Tensor, max_new_tokens: int, eos_id: int) -> torch.Tensor:
    """Greedy decoding after the inputs `embeds` (seq, d_model): at each step the most probable token is appended
    and fed back by its embedding; stops after the end-of-sequence token or `max_new_tokens` tokens.

    Returns the new token ids, shape (n,), long (the end-of-sequence token included when produced).
    """
    out: list[int] = []
    for _ in range(max_new_tokens):
        logits = model(inputs_embeds=embeds.unsqueeze(0))[0, -1]
        tok = int(logits.argmax())
        out.append(tok)
        if tok == eos_id:
            break
        embeds = torch.cat([embeds, model.embed(torch.tensor([tok]))], dim=0)
    return torch.tensor(out, dtype=torch.long)


@torch.no_grad()
def generate_discrete(model: TinyLM, prompt_ids: torch.Tensor, end_think_id: int, eos_id: int,
                      max_think_tokens: int, max_answer_tokens: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Baseline: greedy thinking with discrete tokens until </think> (or the budget), then a greedy answer.

    Returns (thinking token ids, answer ids)."""
    embeds = model.embed(prompt_ids)
    think: list[int] = []
    for _ in range(max_think_tokens):
        tok = int(model(inputs_embeds=embeds.unsqueeze(0))[0, -1].argmax())
        if tok == end_think_id:
            break
        think.append(tok)
        embeds = torch.cat([embeds, model.embed(torch.tensor([tok]))], dim=0)
    embeds = torch.cat([embeds, model.embed(torch.tensor([end_think_id]))], dim=0)
    return torch.tensor(think, dtype=torch.long), greedy_continue(model, embeds, max_answer_tokens, eos_id)
