"""Refusal directions: difference-in-means candidates, their selection, and the interventions that use them."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.utils.hooks import RemovableHandle

from .config import DirectionConfig
from .model import TinyChatLM

Batch = tuple[torch.Tensor, torch.Tensor]  # (input_ids, attention_mask), left-padded, as Tokenizer.encode_batch


@torch.no_grad()
def last_position_logits(model: TinyChatLM, batch: Batch) -> torch.Tensor:
    """Logits (batch, vocab) that the model gives for the first response token."""
    ids, mask = batch
    return model(ids, mask)[:, -1, :]


def candidate_directions(model: TinyChatLM, harmful: Batch, harmless: Batch, n_post: int) -> torch.Tensor:
    """Candidate refusal directions.

    Args:
        model: the chat model (not modified).
        harmful, harmless: (input_ids, attention_mask) batches of templated prompts, left-padded.
        n_post: number of post-instruction positions, the last n_post positions of every prompt.

    Returns:
        Tensor (n_post, n_layers, d_model) in the model's dtype; entry [i, l] belongs to position
        i - n_post (relative to the end of the prompt) and layer l.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def refusal_score(logits: torch.Tensor, refusal_ids: list[int]) -> torch.Tensor:
    """Refusal score of each prompt.

    Args:
        logits: (batch, seq, vocab) logits of left-padded prompts.
        refusal_ids: token ids of the refusal tokens.

    Returns:
        Tensor (batch,) in the logits' dtype, computed in it throughout (float32 or float64; no up- or down-cast).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def add_ablation_hooks(model: TinyChatLM, direction: torch.Tensor) -> list[RemovableHandle]:
    """Register forward hooks that apply directional ablation of `direction` (d_model,) to the model.

    Returns the handles; removing them restores the model."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def add_addition_hooks(model: TinyChatLM, direction: torch.Tensor, layer: int) -> list[RemovableHandle]:
    """Register forward hooks that apply activation addition of `direction` (d_model,) at layer `layer`.

    Returns the handles; removing them restores the model."""
    # TODO: implement (see the method description).
    raise NotImplementedError


@torch.no_grad()
def orthogonalize_weights(model: TinyChatLM, direction: torch.Tensor) -> TinyChatLM:
    """Weight orthogonalization of the model with respect to `direction` (d_model,), in place.

    Returns the model."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def select_direction(model: TinyChatLM, candidates: torch.Tensor, harmful_val: Batch, harmless_val: Batch,
                     refusal_ids: list[int], cfg: DirectionConfig) -> dict:
    """Select the refusal direction among the candidates.

    Args:
        model: the chat model (left unchanged).
        candidates: (n_post, n_layers, d_model) as returned by `candidate_directions`.
        harmful_val, harmless_val: validation batches.
        refusal_ids: token ids of the refusal tokens.
        cfg: selection settings.

    Returns:
        dict with "pos" (int, index into the first axis of candidates), "layer" (int), "direction" (the selected
        candidate, (d_model,)), and "bypass", "induce", "kl": float64 tensors (n_post, n_layers), the scores
        of every candidate; for a float64 model they are computed in float64 throughout (no down-cast).

    Raises:
        ValueError: if no candidate passes the filters.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
