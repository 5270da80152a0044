"""Hyena hierarchy: long convolutions and gating as a drop-in replacement for attention."""

from hyena.config import HyenaConfig
from hyena.model import HyenaLM
from hyena.operator import HyenaOperator, fft_causal_conv

__all__ = ["HyenaConfig", "HyenaLM", "HyenaOperator", "fft_causal_conv"]
