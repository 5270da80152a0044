"""The frozen black-box language model and the ways REPLUG queries it.

REPLUG never looks inside the LM: it only feeds it token sequences and reads the output distributions.
"""
from __future__ import annotations

import torch
from torch import nn

from .config import LMConfig


class TinyLM(nn.Module):
    """A causal GRU language model: tokens (N, T) long -> next-token logits (N, T, vocab_size).

    Position t of the output is the distribution of token t + 1 given tokens 0..t."""

    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.rnn = nn.GRU(cfg.d_model, cfg.d_model, batch_first=True)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be (N, T), got {tuple(tokens.shape)}")
        h, _ = self.rnn(self.embed(tokens))
        return self.head(h)


def freeze(lm: nn.Module) -> nn.Module:
    """Mark every parameter of `lm` as not trainable and put it in eval mode (REPLUG never updates the LM)."""
    for p in lm.parameters():
        p.requires_grad_(False)
    return lm.eval()


def next_token_logprobs(lm: nn.Module, context: torch.Tensor) -> torch.Tensor:
    """log P_LM(next token | context) for contexts (N, T) long -> (N, vocab_size)."""
    return torch.log_softmax(lm(context)[:, -1], dim=-1)


def continuation_logprob(lm: nn.Module, context: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """log P_LM(target | context) of whole continuations: the sum over the target's tokens of
    log P_LM(target_t | context, target_<t).

    Args:
        context: (N, Tc) long, Tc >= 1.
        target: (N, Ty) long, Ty >= 1.
    Returns:
        (N,) in the LM's dtype.
    """
    tokens = torch.cat([context, target], dim=1)
    logp = torch.log_softmax(lm(tokens[:, :-1]), dim=-1)[:, context.shape[1] - 1:]
    return logp.gather(-1, target.unsqueeze(-1)).squeeze(-1).sum(dim=1)
