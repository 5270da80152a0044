"""Options of the three entropy-minimisation methods."""
from __future__ import annotations

from dataclasses import dataclass, field

LOSS_AGG_MODES = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum")
"""How a (B, T) tensor of per-token values is reduced to a scalar loss over the masked (response) tokens:

- "token-mean": the sum over every masked token of the batch, divided by the number of masked tokens of the batch;
- "seq-mean-token-mean": each row's mean over its masked tokens, then the mean over the rows;
- "seq-mean-token-sum": each row's sum over its masked tokens, then the mean over the rows.
"""

REWARD_KINDS = ("sequence", "token")
"""The EM-RL reward estimator: "sequence" (EM-RL-sequence) or "token" (EM-RL-token)."""


@dataclass
class ModelConfig:
    vocab_size: int = 16
    hidden_size: int = 24
    max_len: int = 32
    seed: int = 0


@dataclass
class SamplingConfig:
    max_new_tokens: int = 6
    temperature: float = 1.0


@dataclass
class FTConfig:
    """EM-FT: fine-tuning on the model's own samples."""
    loss_agg_mode: str = "token-mean"
    lr: float = 1e-2
    steps: int = 5
    samples_per_prompt: int = 2
    sampling: SamplingConfig = field(default_factory=SamplingConfig)


@dataclass
class RLConfig:
    """EM-RL: policy gradient with an entropy reward and a leave-one-out baseline over each prompt's group."""
    reward: str = "sequence"
    loss_agg_mode: str = "token-mean"
    group_size: int = 4
    lr: float = 1e-2
    steps: int = 5
    sampling: SamplingConfig = field(default_factory=SamplingConfig)


@dataclass
class InfConfig:
    """EM-INF: logit optimisation at each decoding step (no parameter of the model changes)."""
    optimizer: str = "adam"       # "adam" or "sgd", built by `emr.entropy.logit_optimizer`
    lr: float = 0.1
    max_steps: int = 10
    threshold: float = 0.3        # delta, in nats
    max_new_tokens: int = 8
