"""Metrics of an editing run: efficacy on the edited prompts, specificity on the facts left alone."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from alphaedit.data import EditBatch, FactWorld
from alphaedit.model import TinyLM


@dataclass(frozen=True)
class EditMetrics:
    efficacy: float
    """Share of edit requests whose new object is now the model's top prediction."""
    target_prob: float
    """Mean probability of the new object on the edit prompts."""
    specificity: float
    """Share of untouched facts (both templates) whose prediction did not change."""


@torch.no_grad()
def edit_metrics(model: TinyLM, batches: list[EditBatch], world: FactWorld, untouched: torch.Tensor,
                 before: torch.Tensor) -> EditMetrics:
    """Metrics over every batch edited so far; `before` holds the untouched facts' predictions before editing."""
    tokens = torch.cat([b.tokens for b in batches])
    targets = torch.cat([b.targets for b in batches])
    probs = model(tokens)[:, -1].softmax(-1)
    hit = (probs.argmax(-1) == targets).double().mean().item()
    target_prob = probs[torch.arange(targets.shape[0]), targets].double().mean().item()
    now = untouched_predictions(model, world, untouched)
    return EditMetrics(hit, target_prob, (now == before).double().mean().item())


@torch.no_grad()
def untouched_predictions(model: TinyLM, world: FactWorld, facts: torch.Tensor) -> torch.Tensor:
    """Top predictions (2 n,) for facts (n, 2) in template 0 then template 1."""
    tokens = torch.cat([world.prompts(facts, template)[0] for template in (0, 1)])
    return model(tokens)[:, -1].argmax(-1)
