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
    if n_tokens < 1 or n_recursions < 1:
        raise ValueError("n_tokens and n_recursions must be >= 1")
    caps = []
    for r in range(1, n_recursions + 1):
        num = n_tokens * (n_recursions - r + 1)
        caps.append(-(-num // n_recursions))
    return caps


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
    if k < 0 or bool((eligible.sum(dim=1) < k).any()):
        raise ValueError("not enough eligible positions for the capacity")
    masked = scores.masked_fill(~eligible, float("-inf"))
    order = torch.sort(masked, dim=1, descending=True, stable=True).indices[:, :k]
    out = torch.zeros_like(eligible)
    return out.scatter(1, order, True)


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
    b, t, d = h.shape
    counts = active.sum(dim=1)
    n_sel = int(counts.max())
    order = torch.sort((~active).to(torch.int8), dim=1, stable=True).indices[:, :n_sel]     # (B, K)
    valid = torch.arange(n_sel, device=h.device)[None, :] < counts[:, None]                  # (B, K)
    x_in = h.gather(1, order[:, :, None].expand(b, n_sel, d))
    pos = positions.gather(1, order)
    if shared_kv is None:
        ar = torch.arange(n_sel, device=h.device)
        mask = (ar[None, :] <= ar[:, None])[None] & valid[:, None, :]
    else:
        mask = causal_mask(pos, positions)
    x = x_in
    kv = []
    for j, block in enumerate(model.blocks):
        q, k, v = block.qkv(x, pos)
        sel = valid[:, None, :, None]
        idx = order[:, None, :, None].expand(k.shape)
        k_full = torch.zeros(b, k.shape[1], t, k.shape[3], dtype=k.dtype).scatter(2, idx, k * sel)
        v_full = torch.zeros(b, v.shape[1], t, v.shape[3], dtype=v.dtype).scatter(2, idx, v * sel)
        kv.append((k_full, v_full))
        if shared_kv is not None:
            k, v = shared_kv[j]
        x = block.mix(x, q, k, v, mask)
    g = gate.gather(1, order)[:, :, None]
    upd = torch.where(valid[:, :, None], x_in + g * (x - x_in), x_in)
    h_new = h.scatter(1, order[:, :, None].expand(b, n_sel, d), upd)
    return h_new, kv


def fill_cache(cache: RecursionKVCache, level: int, kv, selected: torch.Tensor) -> None:
    """Store one recursion step of a full-sequence pass (prefill) at one level of the cache, positions 0..T-1.

    Args:
        cache: the `RecursionKVCache` being filled; updated in place (keys, values, written; not length).
        level: the cache level to write.
        kv: a list with one (k, v) pair per layer, each (B, H, T, dh), as returned by `apply_recursion`.
        selected: (B, T) bool, the tokens that took the step.
    """
    t = selected.shape[1]
    for j, (k, v) in enumerate(kv):
        cache.keys[level, j, :, :, :t] = k
        cache.values[level, j, :, :, :t] = v
    cache.written[level, :, :t] = selected


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
    if mode not in ("topk", "threshold"):
        raise ValueError(f"unknown mode {mode!r}")
    check_prefill_cache(cache, h.shape[1])
    cfg = model.cfg
    n_rec = cfg.n_recursions
    b, t, _ = h.shape
    caps = capacity_schedule(t, n_rec)
    eligible = torch.ones(b, t, dtype=torch.bool, device=h.device)
    selected, gates = [], []
    aux = h.new_zeros(())
    shared = None
    for r in range(n_rec):
        s = model.router.scores(h, r)
        p = torch.sigmoid(s)
        g = cfg.router_alpha * p
        if r == 0:
            sel = eligible.clone()
        elif mode == "topk":
            sel = expert_choice_select(g, eligible, caps[r])
        elif cfg.causal_fix == "aux_router":
            sel = eligible & (torch.sigmoid(model.router.aux_scores(h, r)) > 0.5)
        else:
            sel = eligible & (p > 0.5)
        if r > 0 and bool(eligible.any()):
            logit = model.router.aux_scores(h.detach(), r) if cfg.causal_fix == "aux_router" else s
            aux = aux + F.binary_cross_entropy_with_logits(logit[eligible], sel[eligible].to(s.dtype))
        h, kv = apply_recursion(model, h, positions, sel, g, shared)
        if cfg.kv_sharing and r == 0:
            shared = kv
        if cache is not None and (r == 0 or not cfg.kv_sharing):
            fill_cache(cache, 0 if cfg.kv_sharing else r, kv, sel)
        selected.append(sel)
        gates.append(g)
        eligible = sel
    aux = aux / max(n_rec - 1, 1)
    if cache is not None:
        cache.length = t
    return h, {"selected": torch.stack(selected, dim=1), "gates": torch.stack(gates, dim=1), "aux_loss": aux}


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
    check_prefill_cache(cache, h.shape[1])
    cfg = model.cfg
    n_rec = cfg.n_recursions
    logits = model.router.logits(h)
    probs = torch.softmax(logits, dim=-1)
    choice = probs.argmax(dim=-1)
    depth = choice + 1
    g = cfg.router_alpha * probs.gather(-1, choice[..., None]).squeeze(-1)
    selected = []
    shared = None
    for r in range(n_rec):
        sel = depth > r
        h, kv = apply_recursion(model, h, positions, sel, g, shared)
        if cfg.kv_sharing and r == 0:
            shared = kv
        if cache is not None and (r == 0 or not cfg.kv_sharing):
            fill_cache(cache, 0 if cfg.kv_sharing else r, kv, sel)
        selected.append(sel)
    frac = F.one_hot(choice, n_rec).to(probs.dtype).mean(dim=(0, 1))
    mean_prob = probs.mean(dim=(0, 1))
    balance = n_rec * (frac * mean_prob).sum()
    z = torch.logsumexp(logits, dim=-1).pow(2).mean()
    if cache is not None:
        cache.length = h.shape[1]
    info = {"depth": depth, "selected": torch.stack(selected, dim=1), "gates": g, "balance_loss": balance,
            "z_loss": z}
    return h, info


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
    b, t = ids.shape
    check_prefill_cache(cache, t)
    positions = torch.arange(t).expand(b, t)
    h = model.embed(ids)
    full = causal_mask(positions, positions)
    if model.first is not None:
        q, k, v = model.first.qkv(h, positions)
        if cache is not None:
            cache.outer_keys[0, :, :, :t] = k
            cache.outer_values[0, :, :, :t] = v
        h = model.first.mix(h, q, k, v, full)
    if model.cfg.routing == "expert":
        h, info = expert_choice_recursions(model, h, positions, mode=mode, cache=cache)
    else:
        h, info = token_choice_recursions(model, h, positions, cache=cache)
    if model.last is not None:
        q, k, v = model.last.qkv(h, positions)
        if cache is not None:
            cache.outer_keys[1, :, :, :t] = k
            cache.outer_values[1, :, :, :t] = v
        h = model.last.mix(h, q, k, v, full)
    return model.head(model.norm(h)), info


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
    cfg = model.cfg
    pos = cache.length
    if pos >= cache.max_len:
        raise ValueError("cache is full")
    b = token_ids.shape[0]
    positions = torch.full((b, 1), pos, dtype=torch.long)

    def _outer_step(block, which: int, h: torch.Tensor) -> torch.Tensor:
        q, k, v = block.qkv(h, positions)
        cache.outer_keys[which, :, :, pos] = k[:, :, 0]
        cache.outer_values[which, :, :, pos] = v[:, :, 0]
        keys, values = cache.outer_keys[which, :, :, :pos + 1], cache.outer_values[which, :, :, :pos + 1]
        return block.mix(h, q, keys, values, torch.ones(b, 1, pos + 1, dtype=torch.bool))

    h = model.embed(token_ids)[:, None, :]
    if model.first is not None:
        h = _outer_step(model.first, 0, h)
    n_rec = cfg.n_recursions
    if cfg.routing == "token":
        probs = torch.softmax(model.router.logits(h)[:, 0], dim=1)
        choice = probs.argmax(dim=1)
        g_tok = cfg.router_alpha * probs.gather(1, choice[:, None]).squeeze(1)
    active = torch.ones(b, dtype=torch.bool)
    selected = []
    for r in range(n_rec):
        if cfg.routing == "expert":
            p = torch.sigmoid(model.router.scores(h, r)[:, 0])
            g = cfg.router_alpha * p
            if r > 0:
                if cfg.causal_fix == "aux_router":
                    active = active & (torch.sigmoid(model.router.aux_scores(h, r)[:, 0]) > 0.5)
                else:
                    active = active & (p > 0.5)
        else:
            g = g_tok
            active = choice >= r
        level = 0 if cfg.kv_sharing else r
        writes = r == 0 or not cfg.kv_sharing
        if writes:
            cache.written[level, :, pos] = active
        mask = cache.written[level, :, None, :pos + 1]
        x = h
        for j, block in enumerate(model.blocks):
            q, k, v = block.qkv(x, positions)
            if writes:
                a = active[:, None, None]
                cache.keys[level, j, :, :, pos] = torch.where(a, k[:, :, 0], cache.keys[level, j, :, :, pos])
                cache.values[level, j, :, :, pos] = torch.where(a, v[:, :, 0], cache.values[level, j, :, :, pos])
            x = block.mix(x, q, cache.keys[level, j, :, :, :pos + 1], cache.values[level, j, :, :, :pos + 1], mask)
        h = torch.where(active[:, None, None], h + g[:, None, None] * (x - h), h)
        selected.append(active)
    if model.last is not None:
        h = _outer_step(model.last, 1, h)
    cache.length = pos + 1
    logits = model.head(model.norm(h))[:, 0]
    return logits, torch.stack(selected, dim=1)
