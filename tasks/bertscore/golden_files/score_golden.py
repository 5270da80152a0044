"""BERTScore: greedy cosine matching of contextual token embeddings.

``bert_score`` works on embeddings and token ids; ``BERTScorer`` wires it to the tokenizer, the encoder
and the idf weights to score sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from bertscore.encoder import TinyEncoder
from bertscore.idf import compute_idf
from bertscore.tokenizer import SPECIAL_IDS, WordTokenizer


def bert_score(
    ref_emb: torch.Tensor,
    ref_ids: torch.Tensor,
    cand_emb: torch.Tensor,
    cand_ids: torch.Tensor,
    idf: torch.Tensor | None = None,
    special_ids: Sequence[int] = SPECIAL_IDS,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """BERTScore precision, recall and F1 for a batch of (reference, candidate) pairs.

    Args:
        ref_emb: ``[B, Lr, D]`` contextual embeddings of the reference tokens (not normalised).
        ref_ids: ``[B, Lr]`` token ids of the references (right-padded with ``PAD_ID``).
        cand_emb: ``[B, Lc, D]`` contextual embeddings of the candidate tokens (not normalised).
        cand_ids: ``[B, Lc]`` token ids of the candidates.
        idf: optional ``[V]`` importance weight of every token id, in the embeddings' dtype.
            ``None`` means every scored token has weight 1.
        special_ids: ids of tokens that are never scored (padding, ``[CLS]``, ``[SEP]``): such a token is
            neither matched from nor matched to, and its embedding may be arbitrary (even all zeros).

    Returns:
        ``(precision, recall, f1)``, each a ``[B]`` tensor in the embeddings' dtype. Recall averages over
        the reference tokens (weighted by their idf), precision over the candidate tokens (weighted by
        theirs). ``f1`` is 0 where ``precision + recall == 0``.

    Every sentence has at least one scored token, and the weights of its scored tokens sum to a
    positive number.
    """
    special = torch.tensor(list(special_ids), dtype=ref_ids.dtype, device=ref_ids.device)
    ref_keep = ~torch.isin(ref_ids, special)
    cand_keep = ~torch.isin(cand_ids, special)

    ref_unit = ref_emb / ref_emb.norm(dim=-1, keepdim=True)
    cand_unit = cand_emb / cand_emb.norm(dim=-1, keepdim=True)
    sim = ref_unit @ cand_unit.transpose(1, 2)  # [B, Lr, Lc] cosine similarities
    sim = sim.masked_fill(~(ref_keep[:, :, None] & cand_keep[:, None, :]), float("-inf"))

    if idf is None:
        ref_w = ref_keep.to(ref_emb.dtype)
        cand_w = cand_keep.to(cand_emb.dtype)
    else:
        ref_w = idf[ref_ids] * ref_keep
        cand_w = idf[cand_ids] * cand_keep

    # Greedy matching: each reference token takes its most similar candidate token and vice versa.
    ref_best = torch.where(ref_keep, sim.amax(dim=2), 0.0)
    cand_best = torch.where(cand_keep, sim.amax(dim=1), 0.0)
    recall = (ref_w * ref_best).sum(dim=1) / ref_w.sum(dim=1)
    precision = (cand_w * cand_best).sum(dim=1) / cand_w.sum(dim=1)

    total = precision + recall
    f1 = torch.where(total == 0, 0.0, 2 * precision * recall / total)
    return precision, recall, f1


def rescale_with_baseline(score: torch.Tensor, baseline: float) -> torch.Tensor:
    """Linear rescaling (s - b) / (1 - b): the baseline b maps to 0 and a perfect score stays 1."""
    return (score - baseline) / (1.0 - baseline)


class BERTScorer:
    """Scores candidate sentences against references with one encoder layer's embeddings."""

    def __init__(
        self,
        tokenizer: WordTokenizer,
        encoder: TinyEncoder,
        layer: int = -1,
        idf_references: Sequence[str] | None = None,
    ):
        self.tokenizer = tokenizer
        self.encoder = encoder
        self.layer = layer
        self.idf = None
        if idf_references is not None:
            refs = [tokenizer.encode(r) for r in idf_references]
            self.idf = compute_idf(refs, tokenizer.vocab_size)

    def embed(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        ids = self.tokenizer.batch_encode(texts)
        return self.encoder(ids)[self.layer], ids

    def score(
        self, candidates: Sequence[str], references: Sequence[str]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sentence-level ``(P, R, F1)`` for aligned lists of candidates and references."""
        if len(candidates) != len(references):
            raise ValueError("candidates and references must be aligned")
        cand_emb, cand_ids = self.embed(candidates)
        ref_emb, ref_ids = self.embed(references)
        idf = None if self.idf is None else self.idf.to(ref_emb.dtype)
        return bert_score(ref_emb, ref_ids, cand_emb, cand_ids, idf)

    def baseline(self, texts: Sequence[str], num_pairs: int = 64, seed: int = 0) -> tuple[float, float, float]:
        """Average (P, R, F1) over random pairs of unrelated sentences: the scores' empirical floor."""
        gen = torch.Generator().manual_seed(seed)
        first = torch.randint(len(texts), (num_pairs,), generator=gen)
        shift = torch.randint(1, len(texts), (num_pairs,), generator=gen)
        second = (first + shift) % len(texts)
        cands = [texts[i] for i in first.tolist()]
        refs = [texts[i] for i in second.tolist()]
        p, r, f = self.score(cands, refs)
        return p.mean().item(), r.mean().item(), f.mean().item()
