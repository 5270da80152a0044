"""REPLUG: ensemble inference with retrieved documents, and LM-supervised retrieval (LSR) training."""
from __future__ import annotations

import torch
from torch import nn

from .config import ReplugConfig
from .corpus import Corpus
from .lm import continuation_logprob, next_token_logprobs
from .retriever import DocumentIndex, DualEncoder


def ensemble_next_token_logprobs(lm: nn.Module, x: torch.Tensor, docs: torch.Tensor,
                                 scores: torch.Tensor) -> torch.Tensor:
    """REPLUG's next-token distribution for inputs `x` given retrieved documents.

    Args:
        lm: the frozen language model (tokens (N, T) -> logits (N, T, V)).
        x: (B, Tx) long input tokens.
        docs: (B, k, Td) long tokens of the documents retrieved for each input.
        scores: (B, k) similarity scores s(d, x) of those documents.
    Returns:
        (B, V) log-probabilities of the next token, in the LM's dtype and computed in it throughout (`scores` are
        converted to it; no up- or down-cast).
    Raises:
        ValueError: if the batch sizes or k of `x`, `docs` and `scores` disagree.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def lsr_loss(retrieval_scores: torch.Tensor, lm_logprobs: torch.Tensor, gamma: float,
             beta: float) -> torch.Tensor:
    """The LSR training loss for a batch.

    Args:
        retrieval_scores: (B, k) similarity scores s(d, x) of the retrieved documents (differentiable).
        lm_logprobs: (B, k) log P_LM(y | d, x) of each input's ground-truth continuation y given each document.
        gamma: temperature of the retrieval likelihood.
        beta: temperature of the LM likelihood.
    Returns:
        A scalar tensor in the dtype of the inputs, computed in it throughout (float32 or float64; no up- or
        down-cast).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


class ReplugLM:
    """A frozen LM augmented with a retriever over a datastore (REPLUG inference)."""

    def __init__(self, lm: nn.Module, retriever: DualEncoder, index: DocumentIndex, corpus: Corpus,
                 cfg: ReplugConfig):
        self.lm, self.retriever, self.index, self.corpus, self.cfg = lm, retriever, index, corpus, cfg

    @torch.no_grad()
    def next_token_logprobs(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, Tx) long -> (B, V) log-probabilities of the next token under REPLUG."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    @torch.no_grad()
    def continuation_logprob(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """log p(y | x) of whole continuations under REPLUG.

        Args:
            x: (B, Tx) long inputs.
            y: (B, Ty) long continuations, Ty >= 1.
        Returns:
            (B,) in the LM's dtype.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError


class LSRTrainer:
    """Trains the retriever with LM supervision; the LM stays frozen."""

    def __init__(self, lm: nn.Module, retriever: DualEncoder, index: DocumentIndex, corpus: Corpus,
                 cfg: ReplugConfig):
        self.lm, self.retriever, self.index, self.corpus, self.cfg = lm, retriever, index, corpus, cfg
        self.optimizer = torch.optim.Adam(retriever.parameters(), lr=cfg.lr)
        self.steps = 0

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The LSR loss of a batch: x (B, Tx) long inputs, y (B, Ty) long continuations -> scalar tensor."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    def step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        """One optimizer step of the retriever on a batch; returns the batch's loss before the update."""
        # TODO: implement (see the method description).
        raise NotImplementedError
