"""The supervised fine-tuning data SPIN starts from: prompts with human-written responses.

Toy task: the "human" response to a prompt is the prompt's tokens in ascending order, then EOS.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

PAD, BOS, EOS = 0, 1, 2
FIRST_TOKEN = 3


@dataclass
class Responses:
    tokens: torch.Tensor  # (batch, length), PAD after EOS
    mask: torch.Tensor    # (batch, length) bool, True on scored tokens (EOS included)


@dataclass
class SFTData:
    prompts: torch.Tensor  # (n, prompt_len), starting with BOS
    real: Responses        # the human responses y ~ p_data


def make_sft_data(n: int, vocab_size: int, prompt_len: int = 4, seed: int = 0) -> SFTData:
    g = torch.Generator().manual_seed(seed)
    words = torch.randint(FIRST_TOKEN, vocab_size, (n, prompt_len - 1), generator=g)
    prompts = torch.cat([torch.full((n, 1), BOS), words], dim=1)
    sorted_words = words.sort(dim=1).values
    tokens = torch.cat([sorted_words, torch.full((n, 1), EOS)], dim=1)
    return SFTData(prompts, Responses(tokens, torch.ones_like(tokens, dtype=torch.bool)))


def select(data: SFTData, idx: torch.Tensor) -> SFTData:
    return SFTData(data.prompts[idx], Responses(data.real.tokens[idx], data.real.mask[idx]))
