"""Hyper-parameters."""

from dataclasses import dataclass


@dataclass
class HyenaConfig:
    vocab_size: int = 24
    d_model: int = 32
    n_layers: int = 2
    l_max: int = 64  # longest sequence the filters are generated for
    order: int = 2  # N: number of (long convolution, gate) steps
    filter_order: int = 32  # hidden width of the implicit filter FFN
    emb_dim: int = 5  # positional features of the filter FFN (1 + 2 * number of frequency bands)
    short_filter_size: int = 3
    filter_frequency: float = 1.0  # initial frequency of the sine activations of the filter FFN
    fast_decay_pct: float = 0.3
    slow_decay_pct: float = 1.5
    target: float = 1e-2  # the fastest-decaying window falls to `target` at fast_decay_pct * l_max
