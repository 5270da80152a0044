"""A toy datastore and toy (input, continuation) pairs, all random token ids."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from .config import CorpusConfig


@dataclass
class Corpus:
    """The datastore: `docs[i]` are the tokens of document i, shape (n_docs, doc_len), dtype long."""
    docs: torch.Tensor

    def __len__(self) -> int:
        return self.docs.shape[0]

    def gather(self, ids: torch.Tensor) -> torch.Tensor:
        """Tokens of the documents `ids` (any shape S, long) -> (*S, doc_len)."""
        return self.docs[ids]


def random_corpus(cfg: CorpusConfig, generator: torch.Generator) -> Corpus:
    return Corpus(torch.randint(0, cfg.vocab_size, (cfg.n_docs, cfg.doc_len), generator=generator))


def random_pairs(cfg: CorpusConfig, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n inputs x (n, query_len) and their ground-truth continuations y (n, target_len), dtype long."""
    x = torch.randint(0, cfg.vocab_size, (n, cfg.query_len), generator=generator)
    y = torch.randint(0, cfg.vocab_size, (n, cfg.target_len), generator=generator)
    return x, y


def batches(x: torch.Tensor, y: torch.Tensor, batch_size: int):
    """Consecutive (x, y) batches in order; the last one may be smaller."""
    for start in range(0, x.shape[0], batch_size):
        yield x[start:start + batch_size], y[start:start + batch_size]
