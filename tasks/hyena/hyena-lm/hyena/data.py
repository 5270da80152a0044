"""Associative recall: a sequence of (key, value) pairs followed by a query key; the target after the
query is the value paired with that key earlier in the sequence."""

import torch


def associative_recall_batch(
    batch_size: int, num_pairs: int, num_keys: int, num_values: int, generator: torch.Generator
) -> torch.Tensor:
    """(B, 2 * num_pairs + 2) tokens: k1 v1 k2 v2 ... kP vP q v(q). Keys use ids [0, num_keys), values
    ids [num_keys, num_keys + num_values)."""
    rows = []
    for _ in range(batch_size):
        keys = torch.randperm(num_keys, generator=generator)[:num_pairs]
        values = num_keys + torch.randint(0, num_values, (num_pairs,), generator=generator)
        pick = int(torch.randint(0, num_pairs, (1,), generator=generator))
        pairs = torch.stack([keys, values], dim=1).flatten()
        rows.append(torch.cat([pairs, keys[pick : pick + 1], values[pick : pick + 1]]))
    return torch.stack(rows)


def lm_targets(tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return tokens[:, :-1], tokens[:, 1:]
