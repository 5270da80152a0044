"""The motivating toy task of Section 4.1: find the block of letters that contains the query letters."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch

SEP, QUERY, ANSWER = 0, 1, 2  # block separator, start of the query, start of the answer
FIRST_LETTER = 3


@dataclass(frozen=True)
class BlockTask:
    """Sizes of the task: `n_blocks` blocks of `block_len` distinct letters, a query of `n_query` letters.

    A sequence is: block_1 SEP block_2 SEP ... block_n SEP QUERY query ANSWER answer, where the query is `n_query`
    letters of one block (the target) in the block's order, and the answer repeats the whole target block.
    """

    n_blocks: int = 4
    block_len: int = 4
    n_query: int = 2
    vocab_size: int = 32

    @property
    def seq_len(self) -> int:
        return self.n_blocks * (self.block_len + 1) + self.n_query + 2 + self.block_len

    @property
    def answer_start(self) -> int:
        """Index of the first answer token in a sequence."""
        return self.seq_len - self.block_len


def block_batch(task: BlockTask, batch_size: int, g: torch.Generator) -> torch.Tensor:
    """(batch_size, task.seq_len) int64 sequences of the block task."""
    n_letters = task.vocab_size - FIRST_LETTER
    rows = []
    for _ in range(batch_size):
        blocks = torch.stack([torch.randperm(n_letters, generator=g)[:task.block_len] + FIRST_LETTER
                              for _ in range(task.n_blocks)])
        target = int(torch.randint(task.n_blocks, (1,), generator=g))
        picked = torch.randperm(task.block_len, generator=g)[:task.n_query].sort().values
        parts = [torch.cat([blocks[i], torch.tensor([SEP])]) for i in range(task.n_blocks)]
        parts += [torch.tensor([QUERY]), blocks[target][picked], torch.tensor([ANSWER]), blocks[target]]
        rows.append(torch.cat(parts))
    return torch.stack(rows)


def block_batches(task: BlockTask, batch_size: int, seed: int) -> Iterator[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    while True:
        yield block_batch(task, batch_size, g)


def answer_mask(task: BlockTask, batch_size: int) -> torch.Tensor:
    """(batch_size, seq_len - 1) bool: True where the next-token target is an answer token."""
    mask = torch.zeros(batch_size, task.seq_len - 1, dtype=torch.bool)
    mask[:, task.answer_start - 1:] = True
    return mask
