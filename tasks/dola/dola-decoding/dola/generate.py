"""Greedy decoding loops: the plain baseline and DoLa."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch
from torch import Tensor

from dola.contrast import dola_step
from dola.model import EarlyExitLM


@dataclass
class DoLaGeneration:
    tokens: Tensor            # (batch, new_tokens) generated ids
    premature_layers: Tensor  # (batch, new_tokens) premature layer used at each step


@torch.no_grad()
def greedy_generate(model: EarlyExitLM, input_ids: Tensor, max_new_tokens: int) -> Tensor:
    """Plain greedy decoding from the mature layer; returns only the new tokens."""
    ids = input_ids
    for _ in range(max_new_tokens):
        next_ids = model(ids)[:, -1].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_ids], dim=1)
    return ids[:, input_ids.shape[1]:]


@torch.no_grad()
def dola_generate(
    model: EarlyExitLM,
    input_ids: Tensor,
    max_new_tokens: int,
    candidate_layers: Sequence[int],
    alpha: float = 0.1,
) -> DoLaGeneration:
    """Greedy DoLa decoding: at every step take the argmax of the contrasted scores."""
    mature = model.mature_layer
    layers = sorted({*candidate_layers, mature})
    ids = input_ids
    chosen = []
    for _ in range(max_new_tokens):
        logits = model.early_exit_logits(ids, layers)
        step = dola_step({j: x[:, -1] for j, x in logits.items()}, candidate_layers, mature, alpha)
        next_ids = step.scores.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_ids], dim=1)
        chosen.append(step.premature_layer)
    new = ids[:, input_ids.shape[1]:]
    premature = torch.stack(chosen, dim=1) if chosen else new.new_empty(new.shape)
    return DoLaGeneration(tokens=new, premature_layers=premature)
