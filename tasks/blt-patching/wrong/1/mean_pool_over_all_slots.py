# wrong: mean pooling divides by the number of bytes of the sequence instead of the bytes of the patch
def pool_patches(byte_states: torch.Tensor, patches: Patches, mode: PoolingKind) -> torch.Tensor:
    b, t, d = byte_states.shape
    index = patches.patch_ids.unsqueeze(-1).expand(b, t, d)
    if mode == "mean":
        sums = byte_states.new_zeros(b, patches.num_slots, d).scatter_add(1, index, byte_states)
        return sums / t
    start = byte_states.new_full((b, patches.num_slots, d), float("-inf"))
    pooled = start.scatter_reduce(1, index, byte_states, reduce="amax", include_self=True)
    return pooled.masked_fill(~patches.valid.unsqueeze(-1), 0.0)
