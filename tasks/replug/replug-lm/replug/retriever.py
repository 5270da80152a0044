"""The dense retriever: one encoder for inputs and documents, and the datastore index."""
from __future__ import annotations

import torch
from torch import nn

from .config import RetrieverConfig
from .corpus import Corpus


class DualEncoder(nn.Module):
    """Mean-pooled token embeddings followed by a linear map, normalised to unit length, so that the inner
    product of two embeddings is their cosine similarity. The same encoder embeds inputs and documents."""

    def __init__(self, cfg: RetrieverConfig):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_embed)
        self.proj = nn.Linear(cfg.d_embed, cfg.d_embed)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (N, T) long -> (N, d_embed) unit-norm embeddings."""
        h = self.proj(torch.tanh(self.embed(tokens).mean(dim=1)))
        return h / h.norm(dim=-1, keepdim=True)


def similarity(queries: torch.Tensor, docs: torch.Tensor) -> torch.Tensor:
    """s(d, x): the cosine similarity of unit-norm embeddings, queries (B, E) x docs (N, E) -> (B, N)."""
    return queries @ docs.T


class DocumentIndex:
    """The datastore's document embeddings, computed once by `refresh` and kept until the next refresh."""

    def __init__(self, encoder: DualEncoder, corpus: Corpus):
        self.embeddings = torch.empty(0)
        self.refreshes = 0
        self.refresh(encoder, corpus)

    @torch.no_grad()
    def refresh(self, encoder: DualEncoder, corpus: Corpus) -> None:
        """Re-encode every document of `corpus` with the encoder's current parameters."""
        self.embeddings = encoder(corpus.docs).detach().clone()
        self.refreshes += 1

    def search(self, query_emb: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The k documents most similar to each query, by the stored embeddings.

        Args:
            query_emb: (B, E) query embeddings (gradients flow through them into the scores).
            k: 1 <= k <= number of documents.
        Returns:
            scores (B, k) in decreasing order and ids (B, k) long.
        """
        if not 1 <= k <= self.embeddings.shape[0]:
            raise ValueError(f"k must be in [1, {self.embeddings.shape[0]}], got {k}")
        scores = similarity(query_emb, self.embeddings.to(query_emb.dtype))
        top, ids = scores.topk(k, dim=-1)
        return top, ids
