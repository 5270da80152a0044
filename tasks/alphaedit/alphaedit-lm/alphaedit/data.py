"""The toy world of facts (subject, relation) -> object, edit requests and the preserved corpus."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch

PAD = 0


@dataclass(frozen=True)
class EditBatch:
    """u edit requests, each a prompt whose next token should become the new object.

    tokens: (u, seq) long, no padding; the object is predicted at the last position.
    subject_pos: (u,) long, the position of the subject's last token in each prompt.
    targets: (u,) long, the new object's token id.
    """

    tokens: torch.Tensor
    subject_pos: torch.Tensor
    targets: torch.Tensor

    def __post_init__(self) -> None:
        u = self.tokens.shape[0]
        if self.tokens.ndim != 2 or u == 0:
            raise ValueError(f"tokens must be (u >= 1, seq), got {tuple(self.tokens.shape)}")
        if self.subject_pos.shape != (u,) or self.targets.shape != (u,):
            raise ValueError("subject_pos and targets must have shape (u,)")
        if bool(((self.subject_pos < 0) | (self.subject_pos >= self.tokens.shape[1])).any()):
            raise ValueError("a subject position lies outside its prompt")

    def __len__(self) -> int:
        return self.tokens.shape[0]


@dataclass(frozen=True)
class TokenCorpus:
    """Right-padded token sequences: tokens (n, seq) long, mask (n, seq) bool, True at real tokens."""

    tokens: torch.Tensor
    mask: torch.Tensor

    def __post_init__(self) -> None:
        if self.tokens.ndim != 2 or self.mask.shape != self.tokens.shape or self.mask.dtype != torch.bool:
            raise ValueError("tokens (n, seq) and a bool mask of the same shape are required")

    def batches(self, size: int) -> Iterator[TokenCorpus]:
        """Consecutive slices of at most `size` sequences."""
        for start in range(0, self.tokens.shape[0], size):
            yield TokenCorpus(self.tokens[start:start + size], self.mask[start:start + size])


class FactWorld:
    """Subjects (two tokens each), relations and objects, and the object each (subject, relation) has.

    A fact is asked with one of two templates, both three tokens long:
    template 0: [subject_a, subject_b, relation]   (subject's last token at position 1)
    template 1: [relation, subject_a, subject_b]   (subject's last token at position 2)
    """

    def __init__(self, n_subjects: int = 24, n_relations: int = 3, n_objects: int = 12, seed: int = 0) -> None:
        g = torch.Generator().manual_seed(seed)
        self.n_subject_tokens = 12
        self.relation_base = 1 + self.n_subject_tokens
        self.object_base = self.relation_base + n_relations
        self.vocab_size = self.object_base + n_objects
        pairs = torch.cartesian_prod(torch.arange(self.n_subject_tokens), torch.arange(self.n_subject_tokens))
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        self.subjects = 1 + pairs[torch.randperm(pairs.shape[0], generator=g)[:n_subjects]]   # (S, 2) token ids
        self.objects = torch.randint(0, n_objects, (n_subjects, n_relations), generator=g)    # object index
        self.n_relations, self.n_objects = n_relations, n_objects

    def facts(self) -> torch.Tensor:
        """Every (subject, relation) pair, (S * R, 2) long."""
        return torch.cartesian_prod(torch.arange(self.subjects.shape[0]), torch.arange(self.n_relations))

    def prompts(self, facts: torch.Tensor, template: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Prompt tokens (n, 3) and the subject's last position (n,) for facts (n, 2) in one template."""
        subj = self.subjects[facts[:, 0]]
        rel = (self.relation_base + facts[:, 1]).unsqueeze(1)
        if template == 0:
            return torch.cat([subj, rel], dim=1), torch.full((facts.shape[0],), 1)
        if template == 1:
            return torch.cat([rel, subj], dim=1), torch.full((facts.shape[0],), 2)
        raise ValueError(f"unknown template {template}")

    def object_tokens(self, facts: torch.Tensor) -> torch.Tensor:
        """The token id of each fact's current object, (n,)."""
        return self.object_base + self.objects[facts[:, 0], facts[:, 1]]

    def edit_batch(self, facts: torch.Tensor, new_objects: torch.Tensor, templates: torch.Tensor) -> EditBatch:
        """Requests that make fact i answer object index new_objects[i], asked in template templates[i]."""
        tokens, positions = [], []
        for fact, template in zip(facts, templates.tolist()):
            t, p = self.prompts(fact.unsqueeze(0), template)
            tokens.append(t)
            positions.append(p)
        return EditBatch(torch.cat(tokens), torch.cat(positions), self.object_base + new_objects)

    def preserved_corpus(self, facts: torch.Tensor, n_random: int, g: torch.Generator) -> TokenCorpus:
        """The prompts of `facts` in both templates followed by their objects (4 tokens each), and n_random
        right-padded sequences of random tokens (lengths 2..6): the knowledge an edit should leave alone."""
        rows = []
        for template in (0, 1):
            tokens, _ = self.prompts(facts, template)
            rows.append(torch.cat([tokens, self.object_tokens(facts).unsqueeze(1)], dim=1))
        known = torch.cat(rows)
        width = 6
        lengths = torch.randint(2, width + 1, (n_random,), generator=g)
        noise = torch.randint(1, self.vocab_size, (n_random, width), generator=g)
        mask_noise = torch.arange(width) < lengths.unsqueeze(1)
        padded_known = torch.cat([known, torch.full((known.shape[0], width - known.shape[1]), PAD)], dim=1)
        mask_known = torch.arange(width) < known.shape[1]
        tokens = torch.cat([padded_known, noise.masked_fill(~mask_noise, PAD)])
        mask = torch.cat([mask_known.expand(known.shape[0], width), mask_noise])
        return TokenCorpus(tokens, mask)
