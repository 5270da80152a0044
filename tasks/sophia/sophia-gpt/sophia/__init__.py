"""Pre-training a tiny GPT with Sophia (second-order clipped stochastic optimization)."""

from sophia.optimizer import SophiaG

__all__ = ["SophiaG"]
