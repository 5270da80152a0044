"""Synthetic per-layer hidden states for binary concept datasets, and the train/test split."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class ConceptDataset:
    name: str
    hidden_states: torch.Tensor  # (num_layers, num_examples, hidden_dim), float64
    labels: torch.Tensor  # (num_examples,), int64 in {0, 1}
    depth: int  # the first layer where the concept is linearly readable (planted)


def concept_dataset(name: str, num_examples: int, num_layers: int, hidden_dim: int, depth: int,
                    strength: float = 4.0, seed: int = 0) -> ConceptDataset:
    """Hidden states that behave like a residual stream: every layer adds a random update to the previous
    layer. From layer `depth` on, the concept (the label) is written along a fixed random direction with
    margin `strength`; before it the layers carry only a weak, non-linear trace of it (through the
    squared norm of a 2-d sub-space), which a linear probe cannot read."""
    g = torch.Generator().manual_seed(seed)
    labels = (torch.rand(num_examples, generator=g) < 0.5).long()
    sign = labels.to(torch.float64) * 2 - 1
    direction = torch.randn(hidden_dim, generator=g, dtype=torch.float64)
    direction /= direction.norm()
    x = torch.randn(num_examples, hidden_dim, generator=g, dtype=torch.float64)
    # non-linear trace: the radius in dims (0, 1) depends on the label, the sign does not
    angle = torch.rand(num_examples, generator=g, dtype=torch.float64) * 2 * torch.pi
    radius = 1.0 + 0.5 * (sign + 1)
    x[:, 0], x[:, 1] = radius * torch.cos(angle), radius * torch.sin(angle)
    layers = []
    for layer in range(num_layers):
        if layer > 0:
            x = x + 0.2 * torch.randn(num_examples, hidden_dim, generator=g, dtype=torch.float64)
        if layer == depth:
            x = x + 0.5 * strength * sign[:, None] * direction
        layers.append(x.clone())
    return ConceptDataset(name, torch.stack(layers), labels, depth)


def stratified_split(labels: torch.Tensor, test_fraction: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Fixed train/test split that keeps the class proportions.

    For each class c (in increasing order) the indices of class c are shuffled with a torch.Generator
    seeded with `seed` (one generator, used for the classes in turn); the first round(test_fraction * n_c)
    of them (at least one when n_c >= 2) go to the test set. Returns (train_idx, test_idx), each sorted."""
    g = torch.Generator().manual_seed(seed)
    train, test = [], []
    for c in torch.unique(labels).tolist():
        idx = torch.nonzero(labels == c).flatten()
        idx = idx[torch.randperm(idx.numel(), generator=g)]
        n_test = int(round(test_fraction * idx.numel()))
        if idx.numel() >= 2:
            n_test = max(n_test, 1)
        test.append(idx[:n_test])
        train.append(idx[n_test:])
    return torch.sort(torch.cat(train)).values, torch.sort(torch.cat(test)).values
