# WRONG: unique last layer applied right after the first one, before the recursion
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
    if model.last is not None:
        q, k, v = model.last.qkv(h, positions)
        if cache is not None:
            cache.outer_keys[1, :, :, :t] = k
            cache.outer_values[1, :, :, :t] = v
        h = model.last.mix(h, q, k, v, full)
    if model.cfg.routing == "expert":
        h, info = expert_choice_recursions(model, h, positions, mode=mode, cache=cache)
    else:
        h, info = token_choice_recursions(model, h, positions, cache=cache)
    return model.head(model.norm(h)), info
