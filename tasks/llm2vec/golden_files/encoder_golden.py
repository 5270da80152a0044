"""LLM2Vec: bidirectional attention, masked next token prediction, unsupervised SimCSE and pooling.

`llm2vec.model.DecoderLM` builds its attention pattern with `build_attention_mask`; `train.py` runs the two
training stages through `mntp_step` and `simcse_step` and evaluates embeddings made by `encode`.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from llm2vec.data import draw_mask_positions

IGNORE_INDEX = -100          # label of the positions that carry no prediction target
POOLING_MODES = ("mean", "weighted_mean", "eos")


def build_attention_mask(attention_mask: torch.Tensor, bidirectional: bool) -> torch.Tensor:
    """Boolean attention pattern of a padded batch.

    Args:
        attention_mask: (B, T) integer or bool, 1/True at real tokens, 0/False at padding (either side).
        bidirectional: False for the decoder's causal attention, True for the LLM2Vec encoder.

    Returns:
        (B, 1, T, T) bool: entry [b, 0, i, j] is True where query position i may attend to key position j.

    Raises:
        ValueError: if attention_mask is not 2-D.
    """
    if attention_mask.ndim != 2:
        raise ValueError(f"attention_mask must be (B, T), got {tuple(attention_mask.shape)}")
    b, t = attention_mask.shape
    keys = attention_mask.bool()[:, None, None, :]                      # (B, 1, 1, T)
    if bidirectional:
        return keys.expand(b, 1, t, t).clone()
    causal = torch.ones(t, t, dtype=torch.bool, device=attention_mask.device).tril()
    return keys & causal


def mask_tokens(input_ids: torch.Tensor, attention_mask: torch.Tensor, special_ids: list[int], mask_id: int,
                mask_prob: float, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Masked inputs and targets for masked next token prediction.

    Args:
        input_ids: (B, T) int64 token ids.
        attention_mask: (B, T), 1 at real tokens, 0 at padding.
        special_ids: ids of the special tokens (the tokenizer's `special_ids`).
        mask_id: id of the mask token.
        mask_prob: the masking probability.
        generator: the random generator of the masking draw.

    Returns:
        (masked_ids, labels), both (B, T) int64; labels are IGNORE_INDEX where there is nothing to predict.
        input_ids is left unchanged.
    """
    special = torch.isin(input_ids, torch.tensor(special_ids, dtype=input_ids.dtype))
    candidates = attention_mask.bool() & ~special
    chosen = draw_mask_positions(candidates, mask_prob, generator)
    masked_ids = input_ids.masked_fill(chosen, mask_id)
    labels = torch.full_like(input_ids, IGNORE_INDEX).masked_scatter(chosen, input_ids[chosen])
    return masked_ids, labels


def mntp_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """The masked next token prediction loss.

    Args:
        logits: (B, T, V) the LM head's logits of the masked inputs.
        labels: (B, T) int64 from `mask_tokens` (at least one entry differs from IGNORE_INDEX).

    Returns:
        Scalar loss, computed in the dtype of logits (float32 or float64; no up- or down-cast).
    """
    pred = logits[:, :-1].reshape(-1, logits.shape[-1])
    target = labels[:, 1:].reshape(-1)
    return F.cross_entropy(pred, target, ignore_index=IGNORE_INDEX)


def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, mode: str = "mean") -> torch.Tensor:
    """Sequence embeddings from token representations.

    Args:
        hidden: (B, T, d) final hidden states.
        attention_mask: (B, T), 1 at real tokens, 0 at padding (either side); every row has a real token.
        mode: "mean", "weighted_mean" or "eos".

    Returns:
        (B, d), computed in the dtype of hidden (float32 or float64; no up- or down-cast).

    Raises:
        ValueError: for an unknown mode.
    """
    if mode not in POOLING_MODES:
        raise ValueError(f"unknown pooling mode {mode!r}")
    real = attention_mask.to(hidden.dtype)                                   # (B, T)
    if mode == "mean":
        weights = real / real.sum(-1, keepdim=True)
    elif mode == "weighted_mean":
        rank = real.cumsum(-1) * real                                         # 1, 2, ..., n at real tokens
        weights = rank / rank.sum(-1, keepdim=True)
    else:
        last = (torch.arange(hidden.shape[1], device=hidden.device) * attention_mask.bool()).argmax(-1)
        return hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
    return (weights.unsqueeze(-1) * hidden).sum(1)


def simcse_loss(z1: torch.Tensor, z2: torch.Tensor, temperature: float) -> torch.Tensor:
    """Unsupervised SimCSE loss of a batch of positive pairs.

    Args:
        z1: (B, d) embeddings of the first pass.
        z2: (B, d) embeddings of the second pass of the same sequences.
        temperature: the temperature tau.

    Returns:
        Scalar loss, computed in the dtype of z1 (float32 or float64; no up- or down-cast).
    """
    sim = F.normalize(z1, dim=-1) @ F.normalize(z2, dim=-1).T / temperature      # (B, B)
    return F.cross_entropy(sim, torch.arange(z1.shape[0], device=z1.device))


def encode(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, pooling: str = "mean") -> torch.Tensor:
    """Text embeddings of a padded batch with the model used as an LLM2Vec encoder.

    Args:
        model: a `DecoderLM`.
        input_ids: (B, T) int64.
        attention_mask: (B, T), 1 at real tokens, 0 at padding.
        pooling: a mode of `pool`.

    Returns:
        (B, d_model) embeddings (differentiable; the model's train/eval mode is left as it is).
    """
    hidden = model(input_ids, attention_mask, bidirectional=True)
    return pool(hidden, attention_mask, pooling)


def mntp_step(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, tokenizer, mask_prob: float,
              generator: torch.Generator) -> torch.Tensor:
    """The loss of one masked next token prediction step on a batch (no optimizer step).

    Args:
        model: a `DecoderLM`.
        input_ids: (B, T) int64 of unmasked text.
        attention_mask: (B, T), 1 at real tokens, 0 at padding.
        tokenizer: the `Tokenizer` of the batch.
        mask_prob: the masking probability.
        generator: the random generator of the masking draw.

    Returns:
        Scalar loss (differentiable with respect to the model's parameters).
    """
    masked_ids, labels = mask_tokens(input_ids, attention_mask, tokenizer.special_ids, tokenizer.mask_id,
                                     mask_prob, generator)
    hidden = model(masked_ids, attention_mask, bidirectional=True)
    return mntp_loss(model.logits(hidden), labels)


def simcse_step(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, temperature: float,
                pooling: str = "mean") -> torch.Tensor:
    """The loss of one unsupervised SimCSE step on a batch of B sequences (no optimizer step).

    Args:
        model: a `DecoderLM` in train mode, with the dropout of the stage already set.
        input_ids: (B, T) int64.
        attention_mask: (B, T), 1 at real tokens, 0 at padding.
        temperature: the temperature tau.
        pooling: a mode of `pool`.

    Returns:
        Scalar loss (differentiable with respect to the model's parameters).
    """
    z1 = encode(model, input_ids, attention_mask, pooling)
    z2 = encode(model, input_ids, attention_mask, pooling)
    return simcse_loss(z1, z2, temperature)
