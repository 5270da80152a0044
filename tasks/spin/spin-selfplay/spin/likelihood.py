"""Sequence log-likelihoods log p(y | x) of responses."""
from __future__ import annotations

import torch
import torch.nn as nn

from .sft_data import Responses


def response_logprob(model: nn.Module, prompts: torch.Tensor, responses: Responses) -> torch.Tensor:
    """(batch,) sum over the masked response tokens of log p(y_i | x, y_<i)."""
    tokens = torch.cat([prompts, responses.tokens], dim=1)
    logits, _ = model(tokens)
    logits = logits[:, prompts.shape[1] - 1 : -1]
    token_logps = torch.gather(logits.log_softmax(-1), 2, responses.tokens.unsqueeze(-1)).squeeze(-1)
    return (token_logps * responses.mask).sum(-1)
