"""Paired hidden states with a concept direction planted in some layers."""
from __future__ import annotations

import torch


def planted_pairs(num_layers: int, num_pairs: int, dim: int, concept_layers: list[int], strength: float = 3.0,
                  noise: float = 0.3, seed: int = 0) -> dict[str, torch.Tensor]:
    """Return dict(first, second: (num_layers, num_pairs, dim), first_is_positive: (num_pairs,),
    concept: (num_layers, dim) unit vectors, the planted direction of each layer).

    Both members of a pair share a random "content" vector; in the concept layers the positive member
    gets +strength/2 * a_i * concept and the negative one -strength/2 * a_i * concept (a_i in [0.5, 1.5]),
    plus independent noise. Other layers carry no concept signal."""
    g = torch.Generator().manual_seed(seed)
    concept = torch.randn(num_layers, dim, generator=g, dtype=torch.float64)
    concept = concept / concept.norm(dim=-1, keepdim=True)
    content = torch.randn(num_layers, num_pairs, dim, generator=g, dtype=torch.float64) * 2.0
    amp = 0.5 + torch.rand(num_pairs, generator=g, dtype=torch.float64)
    pos = content + noise * torch.randn(num_layers, num_pairs, dim, generator=g, dtype=torch.float64)
    neg = content + noise * torch.randn(num_layers, num_pairs, dim, generator=g, dtype=torch.float64)
    for l in concept_layers:
        shift = 0.5 * strength * amp[:, None] * concept[l]
        pos[l] += shift
        neg[l] -= shift
    first_is_positive = torch.rand(num_pairs, generator=g) < 0.5
    sel = first_is_positive[None, :, None]
    return {
        "first": torch.where(sel, pos, neg),
        "second": torch.where(sel, neg, pos),
        "first_is_positive": first_is_positive,
        "concept": concept,
    }
