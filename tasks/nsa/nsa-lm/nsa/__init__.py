"""A tiny language model with Native Sparse Attention."""

from nsa.config import NSAConfig
from nsa.layer import NativeSparseAttention
from nsa.model import TinyNSALM

__all__ = ["NSAConfig", "NativeSparseAttention", "TinyNSALM"]
