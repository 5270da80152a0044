"""MoverScore: an earth mover's distance between idf-weighted n-gram embeddings.

``ngram_embeddings`` and ``mover_score`` work on one sentence pair's word embeddings; ``MoverScorer`` turns
texts into embeddings and idf weights and scores a corpus.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from moverscore.embed import sentence_embeddings
from moverscore.emd import emd
from moverscore.encoder import Encoder
from moverscore.idf import default_idf, idf_table
from moverscore.tokenizer import Tokenizer


def ngram_embeddings(emb: torch.Tensor, weights: torch.Tensor, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Embeddings and masses of the n-grams of one sentence.

    Args:
        emb: ``[m, D]`` embeddings of the sentence's words, in sentence order (m >= 1).
        weights: ``[m]`` idf weights of the words (non-negative).
        n: n-gram order (n >= 1).

    Returns:
        ``(vectors, mass)``: ``[k, D]`` and ``[k]`` with ``k = m - n + 1`` n-grams, the i-th covering words
        ``i, ..., i + n - 1`` (stride 1, in sentence order). ``vectors[i]`` is the idf-weighted *sum* of its
        words' embeddings and ``mass[i]`` the sum of its words' weights. A sentence shorter than n words forms a
        single n-gram made of all its words (``k = 1``).
    """
    width = min(n, emb.shape[0])
    windows = torch.arange(emb.shape[0] - width + 1)[:, None] + torch.arange(width)[None, :]  # [k, width]
    vectors = (weights[windows, None] * emb[windows]).sum(dim=1)
    mass = weights[windows].sum(dim=1)
    return vectors, mass


def mover_score(
    ref_emb: torch.Tensor,
    ref_idf: torch.Tensor,
    hyp_emb: torch.Tensor,
    hyp_idf: torch.Tensor,
    n_gram: int = 1,
) -> torch.Tensor:
    """MoverScore of one hypothesis against one reference: 1 - WMD between their n-gram distributions.

    Args:
        ref_emb, hyp_emb: ``[m, D]`` and ``[l, D]`` word embeddings (special tokens already removed).
        ref_idf, hyp_idf: ``[m]`` and ``[l]`` idf weights of those words (non-negative; every n-gram's
            total weight is positive).
        n_gram: n-gram order.

    Returns:
        A 0-d float64 tensor. The n-grams' histograms are their masses normalised to sum to 1, their
        embeddings are scaled to unit L2 norm, the ground cost is the Euclidean distance between them, and
        the earth mover's distance is computed with ``emd`` (``moverscore/emd.py``).
    """
    ref_vec, ref_mass = ngram_embeddings(ref_emb, ref_idf, n_gram)
    hyp_vec, hyp_mass = ngram_embeddings(hyp_emb, hyp_idf, n_gram)
    ref_vec = ref_vec / ref_vec.norm(dim=1, keepdim=True)
    hyp_vec = hyp_vec / hyp_vec.norm(dim=1, keepdim=True)
    cost = (ref_vec[:, None, :] - hyp_vec[None, :, :]).norm(dim=2)
    distance = emd(ref_mass / ref_mass.sum(), hyp_mass / hyp_mass.sum(), cost)
    return 1 - distance


class MoverScorer:
    """Scores hypotheses against references; idf tables are computed on each side's corpus.

    Words whose idf is 0 (they occur in every document of their side) carry no mass and are dropped.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        encoder: Encoder,
        references: Sequence[str],
        hypotheses: Sequence[str],
        n_gram: int = 1,
        last_layers: int = 2,
    ):
        self.tokenizer = tokenizer
        self.encoder = encoder
        self.n_gram = n_gram
        self.last_layers = last_layers
        self.ref_idf = idf_table([tokenizer.encode(t) for t in references])
        self.hyp_idf = idf_table([tokenizer.encode(t) for t in hypotheses])
        self.ref_default = default_idf(len(references))
        self.hyp_default = default_idf(len(hypotheses))

    def _weighted(self, texts: Sequence[str], table: dict[int, float], default: float):
        out = []
        for ids, emb in sentence_embeddings(texts, self.tokenizer, self.encoder, self.last_layers):
            w = torch.tensor([table.get(i, default) for i in ids], dtype=torch.float64)
            keep = w > 0
            if not keep.any():
                raise ValueError("a sentence has no word with positive idf")
            out.append((emb[keep], w[keep]))
        return out

    def score(self, hypotheses: Sequence[str], references: Sequence[str]) -> torch.Tensor:
        """Sentence-level MoverScore, ``[N]`` float64."""
        hyps = self._weighted(hypotheses, self.hyp_idf, self.hyp_default)
        refs = self._weighted(references, self.ref_idf, self.ref_default)
        return torch.stack(
            [mover_score(r_emb, r_w, h_emb, h_w, self.n_gram) for (r_emb, r_w), (h_emb, h_w) in zip(refs, hyps)]
        )
