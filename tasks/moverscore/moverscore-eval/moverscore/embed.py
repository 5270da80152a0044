"""Contextual word embeddings for MoverScore."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from moverscore.encoder import Encoder
from moverscore.tokenizer import SPECIAL_IDS, Tokenizer


def sentence_embeddings(
    texts: Sequence[str], tokenizer: Tokenizer, encoder: Encoder, last_layers: int = 2
) -> list[tuple[list[int], torch.Tensor]]:
    """For each text, its content token ids and their embeddings ``[m, dim]`` (float64).

    A token's embedding is the mean of its hidden states over the last ``last_layers`` layers.
    Special tokens ([CLS], [SEP], padding) are dropped.
    """
    encoded = [tokenizer.encode(t) for t in texts]
    states = encoder(tokenizer.pad(encoded))[-last_layers:].mean(dim=0).double()
    out = []
    for row, ids in enumerate(encoded):
        keep = [i for i, tok in enumerate(ids) if tok not in SPECIAL_IDS]
        out.append(([ids[i] for i in keep], states[row, keep]))
    return out
