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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


class ColdStop:
    """Entropy-based early stopping of the thinking phase.

    Args:
        threshold: entropy threshold (nats).
        patience: number of consecutive steps (>= 1).

    Raises:
        ValueError: if patience < 1.
    """

    def __init__(self, threshold: float, patience: int) -> None:
        # TODO: implement (see the method description).
        raise NotImplementedError

    def update(self, entropy: float) -> bool:
        """Observe the entropy of one thinking step; returns True when thinking must stop."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    def reset(self) -> None:
        """Forget every observed step."""
        # TODO: implement (see the method description).
        raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError
