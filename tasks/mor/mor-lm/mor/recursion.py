"""Mixture-of-Recursions routing: expert-choice and token-choice recursion, and cached one-token decoding."""
from __future__ import annotations

import torch
from torch.nn import functional as F

from mor.cache import RecursionKVCache
from mor.layers import causal_mask


def capacity_schedule(n_tokens: int, n_recursions: int) -> list[int]:
    """Expert-choice capacities k_1, ..., k_{N_r} for a sequence of `n_tokens` tokens.

    Args:
        n_tokens: sequence length T (>= 1).
        n_recursions: N_r (>= 1).
    Returns:
        A list of N_r ints, the number of tokens selected at each recursion step.
    Raises:
        ValueError: if n_tokens < 1 or n_recursions < 1.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def expert_choice_select(scores: torch.Tensor, eligible: torch.Tensor, k: int) -> torch.Tensor:
    """Top-k selection of one recursion step, per sequence, among the eligible positions.

    Args:
        scores: (B, T) float router weights (higher is preferred).
        eligible: (B, T) bool, the positions that may be selected.
        k: number of positions to select in every sequence (0 <= k).
    Returns:
        (B, T) bool mask with exactly k True entries per row, all of them eligible. Among equal scores the lower
        position is preferred.
    Raises:
        ValueError: if some row has fewer than k eligible positions, or k < 0.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def apply_recursion(model, h: torch.Tensor, positions: torch.Tensor, active: torch.Tensor, gate: torch.Tensor,
                    shared_kv=None):
    """One recursion step of the shared block on the active tokens of each sequence.

    Args:
        model: a `MoRModel` (its `blocks` form the recursion block).
        h: (B, T, d) hidden states entering the step.
        positions: (B, T) integer positions of the tokens.
        active: (B, T) bool, the tokens that take this step.
        gate: (B, T) router weights g of the tokens (only the active ones are used).
        shared_kv: None, or a list with one (k, v) pair per layer, each (B, H, T, dh): the keys/values of the
            first recursion step, reused by this step (recursive KV sharing).
    Returns:
        (h_new, kv), computed in the dtype of h: h_new (B, T, d) the hidden states after the step; kv a list
        with one (k, v) pair per layer, each (B, H, T, dh), the keys/values this step computed (as `Block.qkv`
        returns them), zero at the positions that are not active.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def fill_cache(cache: RecursionKVCache, level: int, kv, selected: torch.Tensor) -> None:
    """Store one recursion step of a full-sequence pass (prefill) at one level of the cache, positions 0..T-1.

    Args:
        cache: the `RecursionKVCache` being filled; updated in place (keys, values, written; not length).
        level: the cache level to write.
        kv: a list with one (k, v) pair per layer, each (B, H, T, dh), as returned by `apply_recursion`.
        selected: (B, T) bool, the tokens that took the step.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def check_prefill_cache(cache, n_tokens: int) -> None:
    """Raise ValueError unless `cache` is None or an empty cache (length 0) with room for n_tokens positions."""
    if cache is not None and (cache.length != 0 or cache.max_len < n_tokens):
        raise ValueError("prefill needs an empty cache with room for the sequence")


def expert_choice_recursions(model, h: torch.Tensor, positions: torch.Tensor, mode: str = "topk", cache=None):
    """Expert-choice Mixture-of-Recursions over the N_r recursion steps (Section 3.2 of paper.md).

    Args:
        model: a `MoRModel` with `cfg.routing == "expert"` (router `model.router`, block `model.blocks`).
        h: (B, T, d) hidden states entering the first recursion step.
        positions: (B, T) integer positions.
        mode: "topk" (training-time selection with the capacity schedule) or "threshold" (inference-time
            selection by the router's probability; strictly greater than one half selects).
        cache: None, or an empty `RecursionKVCache` (from `model.new_cache`) to prefill with the keys/values of
            positions 0..T-1 (positions must then be 0..T-1); its length becomes T.
    Returns:
        (h_out, info), computed in the dtype of h: h_out (B, T, d); info a dict with
          "selected": (B, N_r, T) bool, the tokens that take each step;
          "gates": (B, N_r, T), the router weight of every position at each step, computed from the hidden state
              entering that step (also for positions that are not eligible);
          "aux_loss": scalar tensor, the auxiliary loss of the main router or of the auxiliary router, as
              `model.cfg.causal_fix` selects (a step without candidates contributes zero).
    Raises:
        ValueError: for an unknown mode, or a cache that is not empty or too short.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def token_choice_recursions(model, h: torch.Tensor, positions: torch.Tensor, cache=None):
    """Token-choice Mixture-of-Recursions (Section 3.3 of paper.md).

    Args:
        model: a `MoRModel` with `cfg.routing == "token"`.
        h: (B, T, d) hidden states entering the first recursion step.
        positions: (B, T) integer positions.
        cache: None, or an empty `RecursionKVCache` (from `model.new_cache`) to prefill with the keys/values of
            positions 0..T-1 (positions must then be 0..T-1); its length becomes T.
    Returns:
        (h_out, info), computed in the dtype of h: h_out (B, T, d); info a dict with
          "depth": (B, T) int64, the number of recursion steps of each token (1..N_r); among equal router
              probabilities the smaller depth is chosen;
          "selected": (B, N_r, T) bool, the tokens that take each step;
          "gates": (B, T), each token's router weight;
          "balance_loss": scalar tensor; "z_loss": scalar tensor.
    Raises:
        ValueError: for a cache that is not empty or too short.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def mor_forward(model, ids: torch.Tensor, mode: str = "topk", cache=None):
    """Full-sequence forward pass of the MoR language model (embedding to logits).

    Args:
        model: a `MoRModel`.
        ids: (B, T) int64 token ids at positions 0..T-1.
        mode: the expert-choice selection mode ("topk" or "threshold"); ignored by token-choice routing.
        cache: None, or an empty `RecursionKVCache` (from `model.new_cache`) to prefill with every layer's
            keys/values of positions 0..T-1; its length becomes T.
    Returns:
        (logits, info), computed in the model's dtype: logits (B, T, vocab); info the dict of
        `expert_choice_recursions` or `token_choice_recursions`.
    Raises:
        ValueError: for an unknown mode (expert-choice routing), or a cache that is not empty or too short.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def decode_step(model, cache: RecursionKVCache, token_ids: torch.Tensor):
    """Decode one new token per sequence through the cache (Section 3.4 of paper.md).

    Recursion-wise KV caching, or recursive KV sharing when `model.cfg.kv_sharing` is set.

    The new token's position is `cache.length`; its routing decisions are those of `expert_choice_recursions`
    in "threshold" mode or of `token_choice_recursions`. Updates `cache` in place (keys, values, written,
    length).

    Args:
        model: a `MoRModel`.
        cache: a `RecursionKVCache` from `model.new_cache`.
        token_ids: (B,) int64 ids of the new tokens.
    Returns:
        (logits, selected): logits (B, vocab) for the next token, computed in the model's dtype; selected
        (B, N_r) bool, the recursion steps the new token took.
    Raises:
        ValueError: if the cache is full.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
