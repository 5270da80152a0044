# WRONG: token-choice router reads the embedding instead of the output of the unique first layer
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
    h_emb = h
    if model.first is not None:
        h = _outer_step(model.first, 0, h)
    n_rec = cfg.n_recursions
    if cfg.routing == "token":
        probs = torch.softmax(model.router.logits(h_emb)[:, 0], dim=1)
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
