"""Instruction tuning: next-token cross-entropy on the answer tokens of [BOS] + Q + A."""
from __future__ import annotations

import copy

import torch

from cherry.data import BOS_ID, Sample, pad
from cherry.model import TinyLM


def sft_loss(model: TinyLM, samples: list[Sample]) -> torch.Tensor:
    """Mean cross-entropy over all answer tokens of the batch, each predicted from [BOS] + Q + its prefix."""
    ids, mask = pad([[BOS_ID, *s.instruction, *s.answer] for s in samples])
    answer = torch.zeros_like(mask)
    for row, s in enumerate(samples):
        answer[row, 1 + len(s.instruction):1 + len(s.instruction) + len(s.answer)] = True
    logits, _ = model(ids)
    nll = torch.nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")
    return nll[answer[:, 1:]].mean()


def brief_training(model: TinyLM, samples: list[Sample], steps: int, lr: float) -> TinyLM:
    """A trained copy of `model` (the original is left unchanged): `steps` full-batch Adam steps on `samples`."""
    trained = copy.deepcopy(model)
    optimizer = torch.optim.Adam(trained.parameters(), lr=lr)
    for _ in range(steps):
        loss = sft_loss(trained, samples)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return trained
