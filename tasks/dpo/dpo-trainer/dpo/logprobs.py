"""Log-probabilities of responses under a causal LM."""
from __future__ import annotations

import torch

from .data import IGNORE_INDEX


def sequence_logps(logits: torch.Tensor, labels: torch.Tensor, ignore_index: int = IGNORE_INDEX) -> torch.Tensor:
    """Summed log-probability of the labelled tokens of each sequence: log pi(y | x).

    Args:
        logits: (batch, seq_len, vocab) next-token logits; position t predicts token t + 1.
        labels: (batch, seq_len) token ids, ``ignore_index`` where the token is not scored
            (prompt and padding).

    Returns:
        (batch,) tensor: sum over scored tokens of log p(token | prefix).
    """
    logits = logits[:, :-1, :]
    labels = labels[:, 1:]
    mask = labels != ignore_index
    safe_labels = labels.masked_fill(~mask, 0)
    token_logps = torch.gather(logits.log_softmax(dim=-1), 2, safe_labels.unsqueeze(2)).squeeze(2)
    return (token_logps * mask).sum(dim=-1)
