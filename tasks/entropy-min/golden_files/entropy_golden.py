"""Entropy minimisation objectives (EM-FT, EM-RL) and inference-time logit optimisation (EM-INF)."""
from __future__ import annotations

import torch

from emr.config import LOSS_AGG_MODES, REWARD_KINDS, InfConfig
from emr.model import TinyLM
from emr.sampling import next_token


def logit_optimizer(params: torch.Tensor, cfg: InfConfig) -> torch.optim.Optimizer:
    """The optimiser EM-INF uses on a logits tensor (a leaf with requires_grad=True)."""
    if cfg.optimizer == "adam":
        return torch.optim.Adam([params], lr=cfg.lr)
    if cfg.optimizer == "sgd":
        return torch.optim.SGD([params], lr=cfg.lr)
    raise ValueError(f"unknown optimizer {cfg.optimizer!r}")


def aggregate_loss(values: torch.Tensor, mask: torch.Tensor, mode: str) -> torch.Tensor:
    """Reduce per-token values to a scalar over the masked tokens.

    Args:
        values: (B, T) float tensor.
        mask: (B, T) bool; every row has at least one True.
        mode: one of `emr.config.LOSS_AGG_MODES`.
    Returns:
        A 0-dim tensor of values' dtype (differentiable with respect to values).
    Raises:
        ValueError: unknown mode.
    """
    if mode not in LOSS_AGG_MODES:
        raise ValueError(f"unknown loss_agg_mode {mode!r}")
    m = mask.to(values.dtype)
    masked = values * m
    if mode == "token-mean":
        return masked.sum() / m.sum()
    per_row = masked.sum(dim=1)
    if mode == "seq-mean-token-mean":
        per_row = per_row / m.sum(dim=1)
    return per_row.mean()


def token_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of the softmax over the last dimension.

    Args:
        logits: (..., V) float tensor.
    Returns:
        (...) tensor of logits' dtype, differentiable with respect to logits. Computed in logits' dtype throughout
        (float32 or float64; no up- or down-cast).
    """
    logp = torch.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1)


def em_ft_loss(logits: torch.Tensor, response_mask: torch.Tensor, loss_agg_mode: str) -> torch.Tensor:
    """The EM-FT loss of a batch of sampled responses.

    Args:
        logits: (B, T, V) float, aligned with the tokens (as `emr.sampling.aligned_logits` returns them).
        response_mask: (B, T) bool, the response tokens.
        loss_agg_mode: one of `emr.config.LOSS_AGG_MODES`.
    Returns:
        A 0-dim tensor of logits' dtype, differentiable with respect to logits. Computed in logits' dtype
        throughout (float32 or float64; no up- or down-cast).
    Raises:
        ValueError: unknown loss_agg_mode.
    """
    return aggregate_loss(token_entropy(logits), response_mask, loss_agg_mode)


def entropy_rewards(logits: torch.Tensor, input_ids: torch.Tensor, response_mask: torch.Tensor,
                    kind: str) -> torch.Tensor:
    """The EM-RL reward of each sampled response.

    Args:
        logits: (B, T, V) float, aligned with the tokens (as `emr.sampling.aligned_logits` returns them).
        input_ids: (B, T) int64, the sampled rows.
        response_mask: (B, T) bool, the response tokens.
        kind: one of `emr.config.REWARD_KINDS`.
    Returns:
        (B,) tensor of logits' dtype, not attached to any autograd graph. Computed in logits' dtype throughout
        (float32 or float64; no up- or down-cast).
    Raises:
        ValueError: unknown kind.
    """
    if kind not in REWARD_KINDS:
        raise ValueError(f"unknown reward {kind!r}")
    logits = logits.detach()
    m = response_mask.to(logits.dtype)
    if kind == "sequence":
        logp = torch.log_softmax(logits, dim=-1).gather(-1, input_ids.unsqueeze(-1)).squeeze(-1)
        return (logp * m).sum(dim=1)
    return -(token_entropy(logits) * m).sum(dim=1)


def rloo_advantages(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    """Advantages of B = G * group_size responses, the rows of one prompt's group being consecutive.

    Args:
        rewards: (B,) float.
        group_size: K >= 2, a divisor of B.
    Returns:
        (B,) tensor of rewards' dtype.
    Raises:
        ValueError: group_size < 2 or not a divisor of B.
    """
    n = rewards.shape[0]
    if group_size < 2 or n % group_size != 0:
        raise ValueError(f"group_size {group_size} does not fit {n} responses")
    r = rewards.reshape(n // group_size, group_size)
    baseline = (r.sum(dim=1, keepdim=True) - r) / (group_size - 1)
    return (r - baseline).reshape(n)


def em_rl_loss(logits: torch.Tensor, input_ids: torch.Tensor, response_mask: torch.Tensor,
               advantages: torch.Tensor, loss_agg_mode: str) -> torch.Tensor:
    """The EM-RL policy-gradient loss (to minimise) of sampled responses with given advantages.

    Args:
        logits: (B, T, V) float, aligned with the tokens, attached to the policy's graph.
        input_ids: (B, T) int64, the sampled rows.
        response_mask: (B, T) bool, the response tokens.
        advantages: (B,) float.
        loss_agg_mode: one of `emr.config.LOSS_AGG_MODES`.
    Returns:
        A 0-dim tensor of logits' dtype, differentiable with respect to logits. Computed in logits' dtype
        throughout (float32 or float64; no up- or down-cast).
    Raises:
        ValueError: unknown loss_agg_mode.
    """
    logp = torch.log_softmax(logits, dim=-1).gather(-1, input_ids.unsqueeze(-1)).squeeze(-1)
    return aggregate_loss(-advantages.detach().unsqueeze(1) * logp, response_mask, loss_agg_mode)


def em_inf_logits(logits: torch.Tensor, cfg: InfConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """EM-INF on one decoding step's logits; each row is an independent decoding state.

    Args:
        logits: (B, V) float (not modified).
        cfg: the EM-INF options; the optimiser is built with `logit_optimizer`.
    Returns:
        (adjusted logits (B, V) of logits' dtype, detached; optimiser steps taken per row (B,) int64). Computed in
        logits' dtype throughout (float32 or float64; no up- or down-cast).
    """
    out = logits.detach().clone()
    steps = torch.zeros(logits.shape[0], dtype=torch.long)
    for b in range(logits.shape[0]):
        z = logits[b].detach().clone().requires_grad_(True)
        opt = logit_optimizer(z, cfg)
        for _ in range(cfg.max_steps):
            h = token_entropy(z)
            if h.item() <= cfg.threshold:
                break
            opt.zero_grad()
            h.backward()
            opt.step()
            steps[b] += 1
        out[b] = z.detach()
    return out, steps


@torch.no_grad()
def em_inf_generate(model: TinyLM, prompt_ids: torch.Tensor, cfg: InfConfig, temperature: float = 0.0,
                    generator: torch.Generator | None = None) -> torch.Tensor:
    """Decoding with EM-INF applied at every step; each step's tokens come from one `emr.sampling.next_token` call
    for the whole batch.

    Args:
        model: the language model (its parameters are not changed).
        prompt_ids: (B, P) int64, P >= 1, no padding.
        cfg: the EM-INF options (cfg.max_new_tokens tokens are generated).
        temperature: 0 for greedy decoding.
        generator: the random source of `next_token` (needed when temperature > 0).
    Returns:
        (B, cfg.max_new_tokens) int64, the generated tokens.
    """
    seq = prompt_ids.clone()
    for _ in range(cfg.max_new_tokens):
        last = model(seq)[:, -1]
        with torch.enable_grad():
            adjusted, _ = em_inf_logits(last, cfg)
        seq = torch.cat([seq, next_token(adjusted, temperature, generator).unsqueeze(1)], dim=1)
    return seq[:, prompt_ids.shape[1]:]
