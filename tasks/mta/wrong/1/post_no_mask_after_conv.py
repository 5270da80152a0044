# WRONG: post-softmax convolution without the outer Mask_0 of Eq. (6)
def attention_weights(scores: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
                      kq_kernel: torch.Tensor | None, kq_conv: Placement, head_kernel: torch.Tensor | None,
                      head_conv: Placement) -> torch.Tensor:
    """Multi-token attention weights A from the logits QK^T / sqrt(d) (Section 3).

    Args:
        scores: (B, H, Tq, Tk) logits; row r is the query at q_positions[r], column c the key at k_positions[c].
            The rows are consecutive positions and so are the columns, with k_positions starting at 0.
        q_positions, k_positions: (Tq,) and (Tk,) int64 absolute positions.
        kq_kernel: (H, c_q, c_k) as for `key_query_conv`; ignored when kq_conv is "none" (may then be None).
        kq_conv: placement of the key-query convolution: "pre", "post" or "none".
        head_kernel: (H / c_h, c_h, c_h) as for `head_mix`; ignored when head_conv is "none" (may then be None).
        head_conv: placement of the head-mixing convolution: "pre", "post" or "none".

    Returns:
        (B, H, Tq, Tk) attention weights, dtype of `scores`.

    Raises:
        ValueError: if a placement is not one of "none", "pre", "post", or a kernel a placement uses is None.
    """
    for placement, kernel in ((kq_conv, kq_kernel), (head_conv, head_kernel)):
        if placement not in ("none", "pre", "post"):
            raise ValueError(f"unknown placement {placement!r}")
        if placement != "none" and kernel is None:
            raise ValueError(f"placement {placement!r} needs a kernel")
    logits = mask_future(scores, q_positions, k_positions, 0.0)
    if kq_conv == "pre":
        logits = key_query_conv(logits, kq_kernel)
    if head_conv == "pre":
        logits = head_mix(logits, head_kernel)
    weights = torch.softmax(mask_future(logits, q_positions, k_positions, float("-inf")), dim=-1)
    if kq_conv == "post":
        weights = key_query_conv(weights, kq_kernel)
    if head_conv == "post":
        weights = head_mix(weights, head_kernel)
    return weights
