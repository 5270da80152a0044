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
    b, k, td = docs.shape
    if x.shape[0] != b or scores.shape != (b, k):
        raise ValueError("x, docs and scores must agree in batch size and k")
    contexts = torch.cat([docs, x.unsqueeze(1).expand(b, k, x.shape[1])], dim=2)
    logp = next_token_logprobs(lm, contexts.reshape(b * k, -1)).reshape(b, k, -1)
    log_weights = torch.log_softmax(scores.to(logp.dtype), dim=-1)
    return torch.logsumexp(logp + log_weights.unsqueeze(-1), dim=1)


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
    log_p_r = torch.log_softmax(retrieval_scores / gamma, dim=-1)
    log_q = torch.log_softmax(lm_logprobs.detach().exp() / beta, dim=-1)
    kl = (log_p_r.exp() * (log_p_r - log_q)).sum(dim=-1)
    return kl.mean()


class ReplugLM:
    """A frozen LM augmented with a retriever over a datastore (REPLUG inference)."""

    def __init__(self, lm: nn.Module, retriever: DualEncoder, index: DocumentIndex, corpus: Corpus,
                 cfg: ReplugConfig):
        self.lm, self.retriever, self.index, self.corpus, self.cfg = lm, retriever, index, corpus, cfg

    @torch.no_grad()
    def next_token_logprobs(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, Tx) long -> (B, V) log-probabilities of the next token under REPLUG."""
        scores, ids = self.index.search(self.retriever(x), self.cfg.k)
        return ensemble_next_token_logprobs(self.lm, x, self.corpus.gather(ids), scores)

    @torch.no_grad()
    def continuation_logprob(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """log p(y | x) of whole continuations under REPLUG.

        Args:
            x: (B, Tx) long inputs.
            y: (B, Ty) long continuations, Ty >= 1.
        Returns:
            (B,) in the LM's dtype.
        """
        scores, ids = self.index.search(self.retriever(x), self.cfg.k)
        docs = self.corpus.gather(ids)
        per_token = []
        for t in range(y.shape[1]):
            logp = ensemble_next_token_logprobs(self.lm, torch.cat([x, y[:, :t]], dim=1), docs, scores)
            per_token.append(logp.gather(-1, y[:, t:t + 1]).squeeze(-1))
        return torch.stack(per_token, dim=1).sum(dim=1)


class LSRTrainer:
    """Trains the retriever with LM supervision; the LM stays frozen."""

    def __init__(self, lm: nn.Module, retriever: DualEncoder, index: DocumentIndex, corpus: Corpus,
                 cfg: ReplugConfig):
        self.lm, self.retriever, self.index, self.corpus, self.cfg = lm, retriever, index, corpus, cfg
        self.optimizer = torch.optim.Adam(retriever.parameters(), lr=cfg.lr)
        self.steps = 0

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The LSR loss of a batch: x (B, Tx) long inputs, y (B, Ty) long continuations -> scalar tensor."""
        scores, ids = self.index.search(self.retriever(x), self.cfg.k)
        b, k = ids.shape
        docs = self.corpus.gather(ids)
        contexts = torch.cat([docs, x.unsqueeze(1).expand(b, k, x.shape[1])], dim=2).reshape(b * k, -1)
        with torch.no_grad():
            lm_logprobs = continuation_logprob(self.lm, contexts, y.repeat_interleave(k, dim=0)).reshape(b, k)
        return lsr_loss(scores, lm_logprobs, self.cfg.gamma, self.cfg.beta)

    def step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        """One optimizer step of the retriever on a batch; returns the batch's loss before the update."""
        self.optimizer.zero_grad()
        loss = self.loss(x, y)
        loss.backward()
        self.optimizer.step()
        self.steps += 1
        if self.steps % self.cfg.index_refresh == 0:
            self.index.refresh(self.retriever, self.corpus)
        return float(loss.detach())
