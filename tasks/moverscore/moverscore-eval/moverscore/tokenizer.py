"""Word-level tokenizer: ``[CLS] w_1 ... w_n [SEP]``, batches right-padded with ``[PAD]``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import torch

PAD, CLS, SEP, UNK = "[PAD]", "[CLS]", "[SEP]", "[UNK]"
PAD_ID, CLS_ID, SEP_ID, UNK_ID = 0, 1, 2, 3
SPECIAL_IDS = frozenset({PAD_ID, CLS_ID, SEP_ID})

_TOKEN = re.compile(r"[a-z0-9']+|[^\sa-z0-9']")


def words(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class Tokenizer:
    def __init__(self, vocab: Sequence[str]):
        self.itos = [PAD, CLS, SEP, UNK] + [w for w in vocab if w not in (PAD, CLS, SEP, UNK)]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @classmethod
    def build(cls, corpus: Iterable[str]) -> "Tokenizer":
        return cls(sorted({w for text in corpus for w in words(text)}))

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, text: str) -> list[int]:
        return [CLS_ID] + [self.stoi.get(w, UNK_ID) for w in words(text)] + [SEP_ID]

    def pad(self, sequences: Sequence[Sequence[int]]) -> torch.Tensor:
        width = max(len(s) for s in sequences)
        return torch.tensor([list(s) + [PAD_ID] * (width - len(s)) for s in sequences], dtype=torch.long)
