"""The neural long-term memory of Titans (Section 3 of paper.md): the surprise of a token, the memory update with
momentum and forgetting (token by token, and in its chunked parallel form), and retrieval."""
from __future__ import annotations

import torch
from torch.func import grad, vmap

from titans.mlp import associative_loss, memory_forward


def token_gradients(weights: list[torch.Tensor], k: torch.Tensor, v: torch.Tensor) -> list[torch.Tensor]:
    """Gradient of each token's associative loss with respect to the memory weights, all at the same weights.

    Args:
        weights: memory weights, one tensor of shape (B, d_in, d_out) per matrix (see `titans.mlp`).
        k: keys, shape (B, n, d_key).
        v: values, shape (B, n, d_value).

    Returns:
        One tensor per weight matrix, shape (B, n, d_in, d_out): entry [b, i] is the gradient for token i of
        sequence b. Differentiable with respect to every input.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def sequential_update(weights: list[torch.Tensor], momentum: list[torch.Tensor], k: torch.Tensor, v: torch.Tensor,
                      alpha: torch.Tensor, eta: torch.Tensor, theta: torch.Tensor
                      ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The memory update of Section 3.1, one token at a time.

    Args:
        weights: memory weights before the first token, one tensor (B, d_in, d_out) per matrix.
        momentum: the surprise momentum before the first token, tensors of the same shapes as `weights`.
        k, v: keys (B, T, d_key) and values (B, T, d_value) of the tokens.
        alpha, eta, theta: forgetting gate, momentum decay and inner learning rate of each token, each (B, T).

    Returns:
        (states, momenta): per weight matrix, tensors of shape (B, T, d_in, d_out); index t holds the memory
        weights and the momentum after token t has been written. Differentiable with respect to every input.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def chunked_update(weights: list[torch.Tensor], momentum: list[torch.Tensor], k: torch.Tensor, v: torch.Tensor,
                   alpha: torch.Tensor, eta: torch.Tensor, theta: torch.Tensor, chunk_size: int
                   ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The parallel (chunked) form of the memory update of Section 3.2.

    Args:
        weights, momentum, k, v, alpha, eta, theta: as in `sequential_update`.
        chunk_size: tokens per chunk (the last chunk may be shorter).

    Returns:
        (states, momenta) as in `sequential_update`.

    Raises:
        ValueError: if chunk_size < 1.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def retrieve(states: list[torch.Tensor], q: torch.Tensor) -> torch.Tensor:
    """Read the memory without changing it: token t's query goes through the memory of step t.

    Args:
        states: per weight matrix, tensors (B, T, d_in, d_out) as returned by the update functions.
        q: queries, shape (B, T, d_key).

    Returns:
        (B, T, d_value).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
