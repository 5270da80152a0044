# keeps the first len(accepted) tree entries instead of the entries of the accepted path
def compact_cache(cache: KVCache, past: int, accepted: list[int]) -> KVCache:
    """The cache after verification: `cache` holds `past` entries of committed tokens, then one entry per entry of
    the flattened tree. Returns a new KVCache with the committed entries and the entries of `accepted` (indices
    into the flattened tree, in path order), in that order."""
    index = torch.cat([torch.arange(past), past + torch.arange(len(accepted))])
    return KVCache([(k.index_select(0, index), v.index_select(0, index)) for k, v in cache.layers])
