# the last, shorter block is averaged over block_size keys (zero padding counted)
def mean_pool_blocks(k: torch.Tensor, block_size: int) -> torch.Tensor:
    """Block representations of the keys.

    Args:
        k: keys, (B, H, T, D), floating point.
        block_size: keys per block (see `moba.blocks`); the last block may be shorter.

    Returns:
        (B, H, n, D), n = ceil(T / block_size), dtype of k; entry j is the representation of block j of that
        sequence and head (Eq. (6)), over the keys the block holds.

    Raises:
        ValueError: if block_size is not a positive integer or k is not 4-d.
    """
    check_block_size(block_size)
    if k.dim() != 4:
        raise ValueError("k must be (B, H, T, D)")
    b, h, t, d = k.shape
    n = num_blocks(t, block_size)
    padded = F.pad(k, (0, 0, 0, n * block_size - t))
    sums = padded.reshape(b, h, n, block_size, d).sum(dim=3)
    counts = block_lengths(t, block_size).to(device=k.device, dtype=k.dtype)
    return sums / block_size
