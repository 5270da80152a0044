# the compacted cache keeps the accepted entries below the root but not the root entry
def compact_cache(cache: KVCache, past: int, accepted: list[int]) -> KVCache:
    """The cache after verification: `cache` holds `past` entries of committed tokens, then one entry per entry of
    the flattened tree. Returns a new KVCache with the committed entries and the entries of `accepted` (indices
    into the flattened tree, in path order), in that order."""
    index = torch.cat([torch.arange(past), past + torch.tensor(accepted[1:], dtype=torch.int64)])
    return KVCache([(k.index_select(0, index), v.index_select(0, index)) for k, v in cache.layers])
