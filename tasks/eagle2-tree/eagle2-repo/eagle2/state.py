"""Data structures shared by the drafting, verification and generation code."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .model import KVCache


@dataclass
class DraftTree:
    """The nodes drafted below a root, numbered 0, 1, ... in creation order: layer by layer; within a layer, the
    children of the expanded nodes in ascending node index, each node's children by descending draft probability
    (the lower token id first on a tie). The root itself is not a node.

    tokens: (n,) int64; parents: (n,) int64, the parent's node index or -1 for a child of the root;
    depths: (n,) int64, 1 for children of the root; values: (n,) float64, the node values (a product of
    probabilities, not a log); expanded: the node indices that were expanded, in the order their children were created."""

    tokens: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.int64))
    parents: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.int64))
    depths: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.int64))
    values: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.float64))
    expanded: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.tokens.shape[0])


@dataclass
class DecodeState:
    """Where a generation stands between two steps.

    ids: every token so far (prompt and generated); the last one has not been through the target yet;
    cache: the target's cache of ids[:-1] (len(ids) - 1 entries, at positions 0 .. len(ids) - 2);
    features: (len(ids) - 1, hidden) float64, the target's features of ids[:-1]."""

    ids: list[int]
    cache: KVCache
    features: torch.Tensor


@dataclass
class StepRecord:
    """One EAGLE-2 step: the verified tree (flattened, root first) and what was committed.

    tree_tokens, tree_parents, tree_depths: the flattened tree (see `flatten_tree`);
    accepted: the flattened indices of the accepted path, root first; new_tokens: the tokens appended to ids
    (the accepted tokens below the root, then the target's bonus token)."""

    tree_tokens: list[int]
    tree_parents: list[int]
    tree_depths: list[int]
    accepted: list[int]
    new_tokens: list[int]


@dataclass
class GenerationResult:
    """tokens: the generated tokens (exactly max_new_tokens); steps: the StepRecords in order; target_calls and
    draft_calls: forward passes made during the generation (the target's include the prompt's); uniforms_used:
    random numbers drawn (0 for greedy decoding)."""

    tokens: list[int]
    steps: list[StepRecord]
    target_calls: int
    draft_calls: int
    uniforms_used: int = 0

    @property
    def mean_accepted(self) -> float:
        """Average tokens committed per target forward pass after the prompt (the paper's acceptance length tau)."""
        return sum(len(s.new_tokens) for s in self.steps) / max(1, len(self.steps))
