"""Configuration of the toy REPLUG setup."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LMConfig:
    vocab_size: int = 11
    d_model: int = 16


@dataclass
class RetrieverConfig:
    vocab_size: int = 11
    d_embed: int = 12


@dataclass
class CorpusConfig:
    n_docs: int = 12
    doc_len: int = 5
    query_len: int = 4
    target_len: int = 2
    vocab_size: int = 11


@dataclass
class ReplugConfig:
    k: int = 4                 # documents retrieved per input (top-k of the similarity)
    gamma: float = 0.5         # temperature of the retrieval likelihood in LSR training
    beta: float = 0.02         # temperature of the LM likelihood in LSR training
    index_refresh: int = 3     # T: the index is re-encoded after every T-th optimizer step
    lr: float = 0.05           # learning rate of the retriever (Adam)
