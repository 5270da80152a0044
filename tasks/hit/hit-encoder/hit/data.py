"""Synthetic entity hierarchies (a random taxonomy) and HiT training triplets.

Each entity of the taxonomy has a short "name" made of token ids. A child's name repeats a
token of its parent's name and adds its own, mimicking ontology labels such as
"disease" -> "lung disease" -> "chronic lung disease".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

import torch

from .model import PAD_ID


@dataclass
class Taxonomy:
    parent_of: List[int]            # parent_of[i] = parent id of entity i (-1 for the root)
    names: List[List[int]]          # token ids of each entity's name (never PAD_ID)
    vocab_size: int

    def ancestors(self, node: int) -> List[int]:
        out = []
        while self.parent_of[node] >= 0:
            node = self.parent_of[node]
            out.append(node)
        return out

    def edges(self) -> List[Tuple[int, int]]:
        """All direct (child, parent) subsumption pairs."""
        return [(c, p) for c, p in enumerate(self.parent_of) if p >= 0]


def random_taxonomy(num_entities: int = 40, branching: int = 3, seed: int = 0) -> Taxonomy:
    g = torch.Generator().manual_seed(seed)
    parent_of = [-1]
    names = [[1]]
    next_token = 2
    for node in range(1, num_entities):
        parent = int(torch.randint(0, max(1, (node + branching - 1) // branching), (1,), generator=g))
        parent = min(parent, node - 1)
        parent_of.append(parent)
        inherited = names[parent][int(torch.randint(0, len(names[parent]), (1,), generator=g))]
        names.append([inherited, next_token])
        next_token += 1
    return Taxonomy(parent_of, names, vocab_size=next_token)


def pad_names(names: List[List[int]]) -> torch.Tensor:
    width = max(len(n) for n in names)
    out = torch.full((len(names), width), PAD_ID, dtype=torch.long)
    for i, n in enumerate(names):
        out[i, : len(n)] = torch.tensor(n)
    return out


def sample_triplets(tax: Taxonomy, batch_size: int, generator: torch.Generator) -> Tuple[torch.Tensor, ...]:
    """Sample ``batch_size`` (child, parent, negative) triplets as padded token-id tensors.

    The negative of a triplet is a random entity that is neither the child itself nor one of
    its ancestors (so it is not a valid parent of the child).
    """
    edges = tax.edges()
    idx = torch.randint(0, len(edges), (batch_size,), generator=generator).tolist()
    children, parents, negatives = [], [], []
    for i in idx:
        c, p = edges[i]
        banned = set(tax.ancestors(c)) | {c}
        while True:
            n = int(torch.randint(0, len(tax.names), (1,), generator=generator))
            if n not in banned:
                break
        children.append(tax.names[c])
        parents.append(tax.names[p])
        negatives.append(tax.names[n])
    return pad_names(children), pad_names(parents), pad_names(negatives)
