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
    per_token = vmap(grad(associative_loss), in_dims=(None, 0, 0))
    return vmap(per_token, in_dims=(0, 0, 0))(list(weights), k, v)


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
    T = k.shape[1]
    w, s = list(weights), list(momentum)
    states, momenta = [[] for _ in w], [[] for _ in w]
    for t in range(T):
        g = token_gradients(w, k[:, t:t + 1], v[:, t:t + 1])
        a, e, th = (x[:, t, None, None] for x in (alpha, eta, theta))
        for i in range(len(w)):
            s[i] = e * s[i] - th * g[i][:, 0]
            w[i] = (1 - a) * w[i] + s[i]
            states[i].append(w[i])
            momenta[i].append(s[i])
    return [torch.stack(x, 1) for x in states], [torch.stack(x, 1) for x in momenta]


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
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    def decay_matrix(a: torch.Tensor) -> torch.Tensor:
        # D[b, t, r] = prod_{r < j <= t} a[b, j] for r <= t, else 0
        n = a.shape[1]
        idx = torch.arange(n, device=a.device)
        t, r, j = idx[:, None, None], idx[None, :, None], idx[None, None, :]
        inside = (j > r) & (j <= t)
        factors = torch.where(inside, a[:, None, None, :], torch.ones_like(a)[:, None, None, :])
        return factors.prod(-1) * (r[..., 0] <= t[..., 0]).to(a.dtype)

    T = k.shape[1]
    w, s = list(weights), list(momentum)
    states, momenta = [[] for _ in w], [[] for _ in w]
    for start in range(0, T, chunk_size):
        sl = slice(start, min(start + chunk_size, T))
        g = token_gradients(w, k[:, sl], v[:, sl])
        e, a, th = eta[:, sl], 1 - alpha[:, sl], theta[:, sl]
        De, Da = decay_matrix(e), decay_matrix(a)
        pe, pa = torch.cumprod(e, 1), torch.cumprod(a, 1)
        for i in range(len(w)):
            # S_t = (prod_{j<=t} eta_j) S_0 - sum_{r<=t} (prod_{r<j<=t} eta_j) theta_r g_r
            S = pe[..., None, None] * s[i][:, None] - torch.einsum("btr,br,brxy->btxy", De, th, g[i])
            # M_t = (prod_{j<=t} (1 - alpha_j)) M_0 + sum_{r<=t} (prod_{r<j<=t} (1 - alpha_j)) S_r
            M = pa[..., None, None] * w[i][:, None] + torch.einsum("btr,brxy->btxy", Da, S)
            states[i].append(M)
            momenta[i].append(S)
            w[i], s[i] = M[:, -1], S[:, -1]
    return [torch.cat(x, 1) for x in states], [torch.cat(x, 1) for x in momenta]


def retrieve(states: list[torch.Tensor], q: torch.Tensor) -> torch.Tensor:
    """Read the memory without changing it: token t's query goes through the memory of step t.

    Args:
        states: per weight matrix, tensors (B, T, d_in, d_out) as returned by the update functions.
        q: queries, shape (B, T, d_key).

    Returns:
        (B, T, d_value).
    """
    return memory_forward(states, q.unsqueeze(-2)).squeeze(-2)
