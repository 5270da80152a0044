"""Instruction data as token ids, and padding."""
from __future__ import annotations

import random
from dataclasses import dataclass

import torch

PAD_ID = 0
BOS_ID = 1
FIRST_WORD_ID = 2


@dataclass(frozen=True)
class Sample:
    """One instruction-tuning pair (Q, A), as token ids without BOS. Both are non-empty."""

    instruction: list[int]
    answer: list[int]


def pad(sequences: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad `sequences` with PAD_ID.

    Returns:
        ids: int64 (B, T) with T the longest length; mask: bool (B, T), True on the real tokens.
    """
    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), PAD_ID, dtype=torch.long)
    mask = torch.zeros(len(sequences), width, dtype=torch.bool)
    for row, seq in enumerate(sequences):
        ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[row, :len(seq)] = True
    return ids, mask


def toy_dataset(num_samples: int, vocab_size: int, seed: int) -> list[Sample]:
    """Random instruction/answer pairs from a few 'task families': each family draws its instruction words from
    its own slice of the vocabulary, and its answers partly repeat the instruction, so that some answers are much
    easier to predict with the instruction than without it."""
    rng = random.Random(seed)
    words = list(range(FIRST_WORD_ID, vocab_size))
    families = [words[i::4] for i in range(4)]
    samples = []
    for _ in range(num_samples):
        family = rng.choice(families)
        instruction = [rng.choice(family) for _ in range(rng.randint(2, 8))]
        copied = [rng.choice(instruction) for _ in range(rng.randint(0, 4))]
        noise = [rng.choice(words) for _ in range(rng.randint(1, 5))]
        answer = copied + noise
        rng.shuffle(answer)
        samples.append(Sample(instruction, answer))
    return samples
