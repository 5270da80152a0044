"""Configuration of the tiny language model and of decoding."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """The tiny causal transformer (softthink/model.py)."""

    vocab_size: int = 24  # must equal the tokenizer's vocabulary size
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 64
    max_positions: int = 128  # longest sequence (prompt + thinking + answer) the model accepts
    init_std: float = 0.5  # std of the random weights (large: the toy model makes peaked predictions)
    seed: int = 0  # seeds the model's weights


@dataclass(frozen=True)
class SoftThinkingConfig:
    """Decoding with Soft Thinking (softthink/soft_thinking.py).

    The next-token distribution of a thinking step goes through the usual sampling filters, in this order:
    the logits are divided by `temperature`, then only the `top_k` most probable tokens are kept, then top-p
    (nucleus) filtering is applied to the renormalised distribution of the kept tokens; the surviving
    probabilities are renormalised to sum to one.
    """

    temperature: float = 0.6
    top_k: int = 15  # 0 or >= the vocabulary size: no top-k filtering
    top_p: float = 0.95  # 1.0: no top-p filtering
    mixture: str = "weighted"  # input embedding of a concept token: "weighted" or "uniform" (average-embedding ablation)
    max_think_tokens: int = 32  # longest thinking phase, in concept tokens
    max_answer_tokens: int = 16  # longest answer, in tokens, the end-of-sequence token included
    cold_stop: bool = True  # enable the entropy-based Cold Stop
    cold_stop_threshold: float = 0.01  # entropy threshold (nats)
    cold_stop_patience: int = 4  # consecutive low-entropy steps that end the thinking phase

    def __post_init__(self) -> None:
        if self.temperature <= 0:
            raise ValueError("temperature must be positive")
        if self.top_k < 0:
            raise ValueError("top_k must be >= 0")
        if not 0.0 < self.top_p <= 1.0:
            raise ValueError("top_p must be in (0, 1]")
        if self.mixture not in ("weighted", "uniform"):
            raise ValueError("mixture must be 'weighted' or 'uniform'")
        if self.max_think_tokens < 0 or self.max_answer_tokens < 1:
            raise ValueError("max_think_tokens must be >= 0 and max_answer_tokens >= 1")
        if self.cold_stop_patience < 1:
            raise ValueError("cold_stop_patience must be >= 1")
