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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


def mntp_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """The masked next token prediction loss.

    Args:
        logits: (B, T, V) the LM head's logits of the masked inputs.
        labels: (B, T) int64 from `mask_tokens` (at least one entry differs from IGNORE_INDEX).

    Returns:
        Scalar loss, computed in the dtype of logits (float32 or float64; no up- or down-cast).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


def simcse_loss(z1: torch.Tensor, z2: torch.Tensor, temperature: float) -> torch.Tensor:
    """Unsupervised SimCSE loss of a batch of positive pairs.

    Args:
        z1: (B, d) embeddings of the first pass.
        z2: (B, d) embeddings of the second pass of the same sequences.
        temperature: the temperature tau.

    Returns:
        Scalar loss, computed in the dtype of z1 (float32 or float64; no up- or down-cast).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError
