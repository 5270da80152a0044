"""Training a tiny language model with the Lion optimizer."""

from lion.optimizer import Lion

__all__ = ["Lion"]
