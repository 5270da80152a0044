"""REPLUG LSR: train the toy retriever with supervision from the frozen toy LM.

    python train_retriever.py --epochs 2
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field

import torch

from replug.config import CorpusConfig, LMConfig, ReplugConfig, RetrieverConfig
from replug.corpus import batches, random_corpus, random_pairs
from replug.lm import TinyLM, freeze
from replug.replug import LSRTrainer
from replug.retriever import DocumentIndex, DualEncoder


@dataclass
class TrainResult:
    losses: list[float] = field(default_factory=list)
    refreshes: int = 0


def build(seed: int = 0, dtype: torch.dtype = torch.float32, cfg: ReplugConfig | None = None,
          corpus_cfg: CorpusConfig | None = None):
    """The frozen LM, the retriever, the corpus, its index and training pairs, all from one seed."""
    corpus_cfg = corpus_cfg or CorpusConfig()
    torch.manual_seed(seed)
    lm = freeze(TinyLM(LMConfig(vocab_size=corpus_cfg.vocab_size)).to(dtype))
    retriever = DualEncoder(RetrieverConfig(vocab_size=corpus_cfg.vocab_size)).to(dtype)
    g = torch.Generator().manual_seed(seed + 1)
    corpus = random_corpus(corpus_cfg, g)
    x, y = random_pairs(corpus_cfg, 16, g)
    index = DocumentIndex(retriever, corpus)
    return lm, retriever, corpus, index, x, y, cfg or ReplugConfig()


def train(epochs: int = 1, batch_size: int = 4, seed: int = 0, dtype: torch.dtype = torch.float32,
          cfg: ReplugConfig | None = None) -> TrainResult:
    lm, retriever, corpus, index, x, y, cfg = build(seed, dtype, cfg)
    trainer = LSRTrainer(lm, retriever, index, corpus, cfg)
    result = TrainResult()
    for _ in range(epochs):
        for xb, yb in batches(x, y, batch_size):
            result.losses.append(trainer.step(xb, yb))
    result.refreshes = index.refreshes
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=4)
    args = parser.parse_args()
    res = train(args.epochs, args.batch_size)
    for i, loss in enumerate(res.losses):
        print(f"step {i + 1}: LSR loss {loss:.4f}")
    print(f"index refreshes (including the initial build): {res.refreshes}")
