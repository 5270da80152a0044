# WRONG: centres the kernel on the query axis too (non-causal along queries)
def key_query_conv(scores: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """The key-query convolution Conv2d_theta of Section 3.1, one kernel per head.

    Args:
        scores: (B, H, Tq, Tk) attention maps; rows are consecutive query positions, columns consecutive key
            positions (row r and column c stand for the paper's i and j).
        kernel: (H, c_q, c_k) the kernels theta of the H heads; kernel[h, i', j' + c_k // 2] is theta_{i', j'}
            of head h (i' in 0 .. c_q - 1, j' in -(c_k // 2) .. ceil(c_k / 2) - 1).

    Returns:
        (B, H, Tq, Tk), dtype of `scores`.

    Raises:
        ValueError: if `scores` is not 4-D or `kernel` is not (H, c_q, c_k) with the H of `scores`.
    """
    if scores.ndim != 4 or kernel.ndim != 3 or kernel.shape[0] != scores.shape[1]:
        raise ValueError(f"scores {tuple(scores.shape)} and kernel {tuple(kernel.shape)} do not fit")
    c_q, c_k = kernel.shape[1:]
    half = c_k // 2
    t_q, t_k = scores.shape[-2:]
    # zero rows before the first query; zero columns beyond both ends of the keys
    padded = F.pad(scores, (c_k - 1 - half, half, c_q - 1 - c_q // 2, c_q // 2))
    out = torch.zeros_like(scores)
    for a in range(c_q):
        rows = slice(c_q - 1 - a, c_q - 1 - a + t_q)  # query i - a + c_q // 2  # query i - a
        for b in range(c_k):
            cols = slice(c_k - 1 - b, c_k - 1 - b + t_k)  # key j - (b - half)
            out = out + kernel[:, a, b, None, None] * padded[..., rows, cols]
    return out
