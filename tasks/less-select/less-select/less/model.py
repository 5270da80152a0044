"""A toy causal language model whose only trainable parameters are a LoRA adapter on its output layer."""
from __future__ import annotations

import torch
from torch import nn

from less.config import ModelConfig
from less.data import Example


class TinyLoRALM(nn.Module):
    """h_t = tanh(mean_{s <= t} E[x_s] W_h); logits_t = h_t (W_0 + lora_A lora_B); E, W_h, W_0 frozen."""

    def __init__(self, config: ModelConfig, dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(config.seed)
        v, d, r = config.vocab_size, config.dim, config.rank
        self.embed = nn.Parameter(torch.randn(v, d, generator=g, dtype=dtype), requires_grad=False)
        self.w_h = nn.Parameter(torch.randn(d, d, generator=g, dtype=dtype) / d**0.5, requires_grad=False)
        self.w_0 = nn.Parameter(torch.randn(d, v, generator=g, dtype=dtype) / d**0.5, requires_grad=False)
        self.lora_A = nn.Parameter(torch.randn(d, r, generator=g, dtype=dtype) / d**0.5)
        self.lora_B = nn.Parameter(torch.zeros(r, v, dtype=dtype))

    def trainable_names(self) -> list[str]:
        """Names of the trainable parameters, in the order their gradients are flattened and concatenated."""
        return ["lora_A", "lora_B"]

    def trainable_parameters(self) -> list[nn.Parameter]:
        return [getattr(self, name) for name in self.trainable_names()]

    def num_trainable(self) -> int:
        """P: the length of a flattened gradient."""
        return sum(p.numel() for p in self.trainable_parameters())

    def load_trainable(self, params: dict[str, torch.Tensor]) -> None:
        """Set the trainable parameters to a checkpoint's values (copied)."""
        with torch.no_grad():
            for name in self.trainable_names():
                getattr(self, name).copy_(params[name])

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(T,) token ids -> (T, vocab) logits for the next token at every position."""
        e = self.embed[input_ids]
        prefix_mean = torch.cumsum(e, dim=0) / torch.arange(1, len(input_ids) + 1, dtype=e.dtype).unsqueeze(-1)
        h = torch.tanh(prefix_mean @ self.w_h)
        return h @ (self.w_0 + self.lora_A @ self.lora_B)

    def loss(self, example: Example) -> torch.Tensor:
        """l(z; theta): mean next-token cross-entropy over the response tokens of one example (a scalar)."""
        logits = self.forward(example.input_ids)[:-1]
        targets = example.labels[1:]
        keep = targets != -100
        return nn.functional.cross_entropy(logits[keep], targets[keep])

    def batch_loss(self, examples: list[Example]) -> torch.Tensor:
        """Training loss of a batch: the mean of the examples' losses."""
        return torch.stack([self.loss(z) for z in examples]).mean()
