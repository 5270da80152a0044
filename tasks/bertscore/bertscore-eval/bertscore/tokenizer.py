"""A word-level tokenizer with BERT-style special tokens.

Each sentence is encoded as ``[CLS] w_1 ... w_n [SEP]`` and a batch is right-padded with ``[PAD]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import torch

PAD_ID = 0
CLS_ID = 1
SEP_ID = 2
UNK_ID = 3
SPECIAL_TOKENS = ("[PAD]", "[CLS]", "[SEP]", "[UNK]")
# Tokens that carry no content and are never scored by the metric. [UNK] is a real (if unknown) word.
SPECIAL_IDS = (PAD_ID, CLS_ID, SEP_ID)

_WORD = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


def split_words(text: str) -> list[str]:
    """Lower-case and split into words and single punctuation marks."""
    return _WORD.findall(text.lower())


class WordTokenizer:
    """Maps words to ids; unknown words map to ``[UNK]``."""

    def __init__(self, vocab: Sequence[str]):
        self.itos = list(SPECIAL_TOKENS) + [w for w in vocab if w not in SPECIAL_TOKENS]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @classmethod
    def from_corpus(cls, texts: Iterable[str]) -> "WordTokenizer":
        words = sorted({w for t in texts for w in split_words(t)})
        return cls(words)

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    def encode(self, text: str) -> list[int]:
        ids = [self.stoi.get(w, UNK_ID) for w in split_words(text)]
        return [CLS_ID, *ids, SEP_ID]

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.itos[i] for i in ids]

    def batch_encode(self, texts: Sequence[str]) -> torch.Tensor:
        """Encode and right-pad with ``PAD_ID``: a ``[B, L]`` long tensor."""
        encoded = [self.encode(t) for t in texts]
        width = max(len(e) for e in encoded)
        out = torch.full((len(encoded), width), PAD_ID, dtype=torch.long)
        for row, ids in enumerate(encoded):
            out[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
        return out
