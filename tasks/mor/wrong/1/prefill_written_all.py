# WRONG: prefill marks every position of the level as written, not only the tokens that took the step
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
    cache.written[level, :, :t] = True
