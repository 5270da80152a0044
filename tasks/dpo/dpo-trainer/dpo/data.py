"""Synthetic preference data.

Every example is a prompt x with two responses: the preferred ("chosen") y_w and the
dispreferred ("rejected") y_l. In the synthetic task the chosen response continues the
prompt by counting upwards, the rejected one is random tokens, so a policy trained with
a preference objective should learn to count.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

PAD_ID = 0
BOS_ID = 1
EOS_ID = 2
FIRST_WORD_ID = 3
IGNORE_INDEX = -100


@dataclass
class PreferencePair:
    prompt: list[int]
    chosen: list[int]
    rejected: list[int]


def random_preference_pairs(
    n: int,
    vocab_size: int,
    seed: int = 0,
    prompt_len: tuple[int, int] = (2, 5),
    response_len: tuple[int, int] = (1, 7),
) -> list[PreferencePair]:
    g = torch.Generator().manual_seed(seed)
    n_words = vocab_size - FIRST_WORD_ID

    def randint(lo: int, hi: int) -> int:
        return int(torch.randint(lo, hi + 1, (1,), generator=g))

    pairs = []
    for _ in range(n):
        prompt = [BOS_ID] + [FIRST_WORD_ID + randint(0, n_words - 1) for _ in range(randint(*prompt_len))]
        start = prompt[-1] - FIRST_WORD_ID
        chosen = [FIRST_WORD_ID + (start + i + 1) % n_words for i in range(randint(*response_len))]
        rejected = [FIRST_WORD_ID + randint(0, n_words - 1) for _ in range(randint(*response_len))]
        pairs.append(PreferencePair(prompt, chosen + [EOS_ID], rejected + [EOS_ID]))
    return pairs


def _encode(prompt: list[int], response: list[int]) -> tuple[list[int], list[int]]:
    """Input ids are prompt + response; labels mask the prompt so only the response is scored."""
    input_ids = prompt + response
    labels = [IGNORE_INDEX] * len(prompt) + response
    return input_ids, labels


def _pad(rows: list[list[int]], value: int, length: int) -> torch.Tensor:
    return torch.tensor([row + [value] * (length - len(row)) for row in rows], dtype=torch.long)


def collate(pairs: list[PreferencePair]) -> dict[str, torch.Tensor]:
    """Right-pad a list of pairs into a batch.

    Returns chosen_/rejected_ input_ids, attention_mask and labels, each (batch, seq_len);
    labels are IGNORE_INDEX on prompt and padding positions.
    """
    batch: dict[str, torch.Tensor] = {}
    for side in ("chosen", "rejected"):
        encoded = [_encode(p.prompt, getattr(p, side)) for p in pairs]
        length = max(len(ids) for ids, _ in encoded)
        ids = _pad([e[0] for e in encoded], PAD_ID, length)
        batch[f"{side}_input_ids"] = ids
        batch[f"{side}_attention_mask"] = _pad([[1] * len(e[0]) for e in encoded], 0, length)
        batch[f"{side}_labels"] = _pad([e[1] for e in encoded], IGNORE_INDEX, length)
    return batch


def batches(pairs: list[PreferencePair], batch_size: int, seed: int = 0):
    """Shuffle the pairs and yield collated batches forever."""
    g = torch.Generator().manual_seed(seed)
    while True:
        order = torch.randperm(len(pairs), generator=g).tolist()
        for i in range(0, len(order) - batch_size + 1, batch_size):
            yield collate([pairs[j] for j in order[i : i + batch_size]])
