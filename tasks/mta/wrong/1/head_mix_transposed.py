# WRONG: uses w_ba instead of w_ab (head b receives from head a)
def head_mix(maps: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """The head-mixing convolution of Section 3.2 over groups of c_h consecutive heads.

    Args:
        maps: (B, H, Tq, Tk) attention logits or weights of the H heads.
        kernel: (H / c_h, c_h, c_h); kernel[g, a, b] is the weight w_{a+1, b+1} with which head g c_h + b enters
            head g c_h + a in group g.

    Returns:
        (B, H, Tq, Tk), dtype of `maps`.

    Raises:
        ValueError: if `maps` is not 4-D or `kernel` is not (G, c_h, c_h) with G c_h = H.
    """
    if maps.ndim != 4 or kernel.ndim != 3 or kernel.shape[1] != kernel.shape[2]:
        raise ValueError(f"maps {tuple(maps.shape)} and kernel {tuple(kernel.shape)} do not fit")
    n_groups, c_h, _ = kernel.shape
    if n_groups * c_h != maps.shape[1]:
        raise ValueError(f"{n_groups} groups of {c_h} heads do not make {maps.shape[1]} heads")
    b, h, t_q, t_k = maps.shape
    grouped = maps.reshape(b, n_groups, c_h, t_q, t_k)
    return torch.einsum("gba,ngbqk->ngaqk", kernel, grouped).reshape(b, h, t_q, t_k)
