"""Soft Thinking: concept tokens, Cold Stop, and generation that thinks in concept space and answers with
discrete tokens."""
from __future__ import annotations

import torch

from .config import SoftThinkingConfig
from .decoding import greedy_continue
from .model import TinyLM
from .utils import SoftThinkingOutput, entropy


def concept_token(logits: torch.Tensor, cfg: SoftThinkingConfig) -> torch.Tensor:
    """The concept token of next-token logits.

    Args:
        logits: (..., vocab_size) float logits.
        cfg: temperature and filtering settings.
    Returns:
        (..., vocab_size) probabilities over the vocabulary (same dtype as `logits`), each row summing to one.
        Computed in the dtype of `logits` throughout (float32 or float64; no up- or down-cast).
    """
    probs = torch.softmax(logits / cfg.temperature, dim=-1)
    vocab = logits.shape[-1]
    if 0 < cfg.top_k < vocab:
        kth = probs.topk(cfg.top_k, dim=-1).values[..., -1:]
        probs = torch.where(probs >= kth, probs, torch.zeros_like(probs))
        probs = probs / probs.sum(dim=-1, keepdim=True)
    if cfg.top_p < 1.0:
        sorted_p, order = probs.sort(dim=-1, descending=True)
        before = sorted_p.cumsum(dim=-1) - sorted_p
        keep_sorted = before < cfg.top_p
        keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
        probs = torch.where(keep, probs, torch.zeros_like(probs))
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs


def concept_embedding(concept: torch.Tensor, weight: torch.Tensor, mixture: str = "weighted") -> torch.Tensor:
    """The input embedding of concept tokens.

    Args:
        concept: (..., vocab_size) concept tokens (probabilities over the vocabulary).
        weight: (vocab_size, d_model) the token embedding matrix.
        mixture: "weighted" or "uniform" (SoftThinkingConfig.mixture).
    Returns:
        (..., d_model) embeddings in the dtype of `weight`.
    Raises:
        ValueError: if the mixture is unknown.
    """
    ct = concept.to(weight.dtype)
    if mixture == "weighted":
        return ct @ weight
    if mixture == "uniform":
        kept = (ct > 0).to(weight.dtype)
        return (kept @ weight) / kept.sum(dim=-1, keepdim=True)
    raise ValueError(f"unknown mixture {mixture!r}")


class ColdStop:
    """Entropy-based early stopping of the thinking phase.

    Args:
        threshold: entropy threshold (nats).
        patience: number of consecutive steps (>= 1).

    Raises:
        ValueError: if patience < 1.
    """

    def __init__(self, threshold: float, patience: int) -> None:
        if patience < 1:
            raise ValueError("patience must be >= 1")
        self.threshold = threshold
        self.patience = patience
        self.count = 0

    def update(self, entropy: float) -> bool:
        """Observe the entropy of one thinking step; returns True when thinking must stop."""
        if entropy < self.threshold:
            self.count += 1
        else:
            self.count = 0
        return self.count >= self.patience

    def reset(self) -> None:
        """Forget every observed step."""
        self.count = 0


@torch.no_grad()
def soft_thinking_generate(model: TinyLM, prompt_ids: torch.Tensor, cfg: SoftThinkingConfig, end_think_id: int,
                           eos_id: int) -> SoftThinkingOutput:
    """Generate with Soft Thinking for one prompt.

    Args:
        model: the language model.
        prompt_ids: (seq,) long, the prompt, ending with the start-of-thinking token.
        cfg: decoding settings.
        end_think_id: id of the end-of-thinking token.
        eos_id: id of the end-of-sequence token.
    Returns:
        SoftThinkingOutput (softthink/utils.py).
    """
    weight = model.embedding_weight
    embeds = model.embed(prompt_ids)
    monitor = ColdStop(cfg.cold_stop_threshold, cfg.cold_stop_patience) if cfg.cold_stop else None
    concepts: list[torch.Tensor] = []
    reason = "max_think"
    while len(concepts) < cfg.max_think_tokens:
        logits = model(inputs_embeds=embeds.unsqueeze(0))[0, -1]
        ct = concept_token(logits, cfg)
        if int(ct.argmax()) == end_think_id:
            reason = "end_think"
            break
        concepts.append(ct)
        embeds = torch.cat([embeds, concept_embedding(ct, weight, cfg.mixture).unsqueeze(0)], dim=0)
        if monitor is not None and monitor.update(float(entropy(ct))):
            reason = "cold_stop"
            break
    embeds = torch.cat([embeds, model.embed(torch.tensor([end_think_id]))], dim=0)
    answer = greedy_continue(model, embeds, cfg.max_answer_tokens, eos_id)
    vocab = weight.shape[0]
    stacked = torch.stack(concepts) if concepts else torch.zeros(0, vocab, dtype=weight.dtype)
    return SoftThinkingOutput(stacked, answer, reason)
