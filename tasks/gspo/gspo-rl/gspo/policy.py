"""A tiny autoregressive policy (GRU) over the toy vocabulary, with sampling and per-token log-probs."""
from __future__ import annotations

import torch
from torch import nn

from gspo.data import EOS, PAD, response_mask


class TinyPolicy(nn.Module):
    """Embedding, one GRU layer and a linear head over every token but PAD (which is never generated)."""

    def __init__(self, vocab_size: int, hidden_size: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden_size)
        self.rnn = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, vocab_size - 1)  # logits of token ids 1..vocab_size-1

    def forward(self, tokens: torch.Tensor, state: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Next-token log-probabilities over ids 1..V-1 at every position: (B, L, V-1), and the GRU state."""
        hidden, state = self.rnn(self.embed(tokens), state)
        return torch.log_softmax(self.head(hidden), dim=-1), state

    def token_logprobs(self, prompts: torch.Tensor, responses: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """log pi(y_t | x, y_<t) of every response token: (B, T); 0 after the end of each response.

        prompts: (B, P) token ids; responses: (B, T) token ids, PAD after the end; lengths: (B,).
        """
        tokens = torch.cat([prompts, responses[:, :-1]], dim=1)
        logp, _ = self(tokens)
        logp = logp[:, prompts.shape[1] - 1 :]
        picked = logp.gather(-1, (responses - 1).clamp(min=0).unsqueeze(-1)).squeeze(-1)
        return picked.masked_fill(~response_mask(lengths, responses.shape[1]), 0.0)

    @torch.no_grad()
    def sample(
        self, prompts: torch.Tensor, max_len: int, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """One response per prompt, sampled until EOS or `max_len` tokens.

        Returns responses (B, max_len) (PAD after the end) and lengths (B,): tokens generated, EOS included.
        """
        batch = prompts.shape[0]
        responses = torch.full((batch, max_len), PAD, dtype=torch.long)
        done = torch.zeros(batch, dtype=torch.bool)
        logp, state = self(prompts)
        step_logp = logp[:, -1]
        for t in range(max_len):
            token = torch.multinomial(step_logp.exp(), 1, generator=generator).squeeze(1) + 1
            responses[:, t] = torch.where(done, PAD, token)
            done = done | (token == EOS)
            if bool(done.all()):
                break
            logp, state = self(responses[:, t : t + 1], state)
            step_logp = logp[:, -1]
        lengths = (responses != PAD).sum(dim=1)
        return responses, lengths
