"""Per-token log-likelihoods of responses given prompts."""
from __future__ import annotations

import torch
import torch.nn as nn


def response_token_logps(model: nn.Module, prompts: torch.Tensor, responses: torch.Tensor) -> torch.Tensor:
    """log p(response token | prompt, previous response tokens) for every response position.

    Args:
        prompts: (batch, prompt_len) token ids (all prompts have the same length here).
        responses: (batch, resp_len) token ids, right-padded; padded positions get arbitrary
            values in the result and must be masked by the caller.

    Returns:
        (batch, resp_len) tensor of per-token log-probabilities.
    """
    tokens = torch.cat([prompts, responses], dim=1)
    logits = model(tokens)[:, prompts.shape[1] - 1 : -1]  # position t predicts token t + 1
    return torch.gather(logits.log_softmax(-1), 2, responses.unsqueeze(-1)).squeeze(-1)
