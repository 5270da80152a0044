"""Adaptive budget allocation for parameter-efficient fine-tuning (AdaLoRA), minimal re-implementation."""

from adalora.layers import SVDLinear
from adalora.allocator import RankAllocator
from adalora.regularizer import orthogonal_regularization

__all__ = ["SVDLinear", "RankAllocator", "orthogonal_regularization"]
