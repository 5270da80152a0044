"""A tiny autoregressive policy over the toy vocabulary: sampling and per-token log-probabilities."""
from __future__ import annotations

import torch
from torch import nn

from kimi.data import EOS, PAD, VOCAB_SIZE, response_mask


class ToyPolicy(nn.Module):
    """Embedding, a GRU and a head whose logits cover every token except PAD (never generated)."""

    def __init__(self, hidden_size: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB_SIZE, hidden_size, padding_idx=PAD)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, VOCAB_SIZE - 1)

    def next_token_logprobs(
        self, tokens: torch.Tensor, state: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, L, V - 1) log-probabilities of tokens 1..V-1 after each position, and the GRU state."""
        out, state = self.gru(self.embed(tokens), state)
        return torch.log_softmax(self.head(out), dim=-1), state

    def token_logprobs(self, prompts: torch.Tensor, responses: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """log pi(o_t | x, o_<t) of every response token, 0 past each response's end.

        prompts: (..., P) long; responses: (..., T) long; lengths: (...) long. Returns (..., T) in the
        parameters' dtype. Leading dimensions of prompts and responses must agree.
        """
        lead = responses.shape[:-1]
        flat_p = prompts.reshape(-1, prompts.shape[-1])
        flat_r = responses.reshape(-1, responses.shape[-1])
        logp, _ = self.next_token_logprobs(torch.cat([flat_p, flat_r[:, :-1]], dim=1))
        logp = logp[:, flat_p.shape[1] - 1:]
        picked = logp.gather(-1, (flat_r - 1).clamp(min=0).unsqueeze(-1)).squeeze(-1).reshape(*lead, -1)
        return picked.masked_fill(~response_mask(lengths, responses.shape[-1]), 0.0)

    @torch.no_grad()
    def sample(
        self, prompts: torch.Tensor, k: int, max_len: int, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """k responses to each prompt, each sampled until EOS or `max_len` tokens.

        prompts: (N, P) long. Returns responses (N, k, max_len) long (PAD past the end) and lengths (N, k) long
        (tokens generated, EOS included).
        """
        n = prompts.shape[0]
        flat = prompts.repeat_interleave(k, dim=0)
        out = torch.full((n * k, max_len), PAD, dtype=torch.long)
        finished = torch.zeros(n * k, dtype=torch.bool)
        logp, state = self.next_token_logprobs(flat)
        for t in range(max_len):
            token = torch.multinomial(logp[:, -1].exp(), 1, generator=generator).squeeze(1) + 1
            out[:, t] = torch.where(finished, torch.full_like(token, PAD), token)
            finished |= token == EOS
            if bool(finished.all()):
                break
            logp, state = self.next_token_logprobs(out[:, t:t + 1], state)
        lengths = (out != PAD).sum(dim=1)
        return out.reshape(n, k, max_len), lengths.reshape(n, k)
