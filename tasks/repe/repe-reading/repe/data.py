"""Contrast pairs of stimuli and their hidden states."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from repe.model import TinyCausalLM

BOS, POSITIVE_PERSONA, NEGATIVE_PERSONA = 0, 1, 2
FIRST_CONTENT_TOKEN = 3


@dataclass
class PairedStimuli:
    first: torch.Tensor  # (num_pairs, seq_len) token ids
    second: torch.Tensor  # (num_pairs, seq_len)
    first_is_positive: torch.Tensor  # (num_pairs,) bool


def contrast_pairs(num_pairs: int, statement_len: int, vocab_size: int, seed: int) -> PairedStimuli:
    """Each pair is one random statement prefixed by the positive persona token and by the negative one.
    Within each pair the two stimuli are put in a random order (seeded); `first_is_positive` records it."""
    g = torch.Generator().manual_seed(seed)
    statements = torch.randint(FIRST_CONTENT_TOKEN, vocab_size, (num_pairs, statement_len), generator=g)
    bos = torch.full((num_pairs, 1), BOS)
    pos = torch.cat([bos, torch.full((num_pairs, 1), POSITIVE_PERSONA), statements], dim=1)
    neg = torch.cat([bos, torch.full((num_pairs, 1), NEGATIVE_PERSONA), statements], dim=1)
    first_is_positive = torch.rand(num_pairs, generator=g) < 0.5
    sel = first_is_positive[:, None]
    return PairedStimuli(torch.where(sel, pos, neg), torch.where(sel, neg, pos), first_is_positive)


@torch.no_grad()
def last_token_states(model: TinyCausalLM, tokens: torch.Tensor, layers: list[int]) -> torch.Tensor:
    """(len(layers), batch, d_model) hidden states of the last token at the requested layers, in float64."""
    _, hidden = model(tokens)
    return torch.stack([hidden[l][:, -1] for l in layers]).to(torch.float64)


def split_pairs(pairs: PairedStimuli, num_train: int) -> tuple[PairedStimuli, PairedStimuli]:
    """The first `num_train` pairs for fitting reading vectors, the rest for evaluation."""
    head = PairedStimuli(pairs.first[:num_train], pairs.second[:num_train], pairs.first_is_positive[:num_train])
    tail = PairedStimuli(pairs.first[num_train:], pairs.second[num_train:], pairs.first_is_positive[num_train:])
    return head, tail
