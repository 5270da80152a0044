"""A character tokenizer with the special tokens of a reasoning model."""
from __future__ import annotations

import torch

PAD, BOS, EOS, THINK, END_THINK = "<pad>", "<bos>", "<eos>", "<think>", "</think>"
SPECIALS = (PAD, BOS, EOS, THINK, END_THINK)
CHARS = "0123456789+-*=? ab"


class Tokenizer:
    """Ids 0-4 are the special tokens (pad, bos, eos, think, end of thinking), then one id per character."""

    def __init__(self) -> None:
        self.itos = list(SPECIALS) + list(CHARS)
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.pad_id, self.bos_id, self.eos_id = self.stoi[PAD], self.stoi[BOS], self.stoi[EOS]
        self.think_id, self.end_think_id = self.stoi[THINK], self.stoi[END_THINK]

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    def encode(self, text: str) -> list[int]:
        return [self.stoi[c] for c in text]

    def decode(self, ids: list[int] | torch.Tensor) -> str:
        if isinstance(ids, torch.Tensor):
            ids = ids.tolist()
        return "".join(self.itos[i] for i in ids)

    def prompt(self, question: str) -> torch.Tensor:
        """The model's input for a question: <bos> question <think>, as a 1-D long tensor."""
        return torch.tensor([self.bos_id, *self.encode(question), self.think_id], dtype=torch.long)
