# WRONG: rotary positions renumbered 0..K-1 within the selected tokens instead of the original positions
def apply_recursion(model, h: torch.Tensor, positions: torch.Tensor, active: torch.Tensor, gate: torch.Tensor,
                    shared_kv=None):
    """One recursion step of the shared block on the active tokens of each sequence.

    Args:
        model: a `MoRModel` (its `blocks` form the recursion block).
        h: (B, T, d) hidden states entering the step.
        positions: (B, T) integer positions of the tokens.
        active: (B, T) bool, the tokens that take this step.
        gate: (B, T) router weights g of the tokens (only the active ones are used).
        shared_kv: None, or a list with one (k, v) pair per layer, each (B, H, T, dh): the keys/values of the
            first recursion step, reused by this step (recursive KV sharing).
    Returns:
        (h_new, kv), computed in the dtype of h: h_new (B, T, d) the hidden states after the step; kv a list
        with one (k, v) pair per layer, each (B, H, T, dh), the keys/values this step computed (as `Block.qkv`
        returns them), zero at the positions that are not active.
    """
    b, t, d = h.shape
    counts = active.sum(dim=1)
    n_sel = int(counts.max())
    order = torch.sort((~active).to(torch.int8), dim=1, stable=True).indices[:, :n_sel]     # (B, K)
    valid = torch.arange(n_sel, device=h.device)[None, :] < counts[:, None]                  # (B, K)
    x_in = h.gather(1, order[:, :, None].expand(b, n_sel, d))
    pos = torch.arange(n_sel, device=h.device).expand(b, n_sel)
    if shared_kv is None:
        ar = torch.arange(n_sel, device=h.device)
        mask = (ar[None, :] <= ar[:, None])[None] & valid[:, None, :]
    else:
        mask = causal_mask(positions.gather(1, order), positions)
    x = x_in
    kv = []
    for j, block in enumerate(model.blocks):
        q, k, v = block.qkv(x, pos)
        sel = valid[:, None, :, None]
        idx = order[:, None, :, None].expand(k.shape)
        k_full = torch.zeros(b, k.shape[1], t, k.shape[3], dtype=k.dtype).scatter(2, idx, k * sel)
        v_full = torch.zeros(b, v.shape[1], t, v.shape[3], dtype=v.dtype).scatter(2, idx, v * sel)
        kv.append((k_full, v_full))
        if shared_kv is not None:
            k, v = shared_kv[j]
        x = block.mix(x, q, k, v, mask)
    g = gate.gather(1, order)[:, :, None]
    upd = torch.where(valid[:, :, None], x_in + g * (x - x_in), x_in)
    h_new = h.scatter(1, order[:, :, None].expand(b, n_sel, d), upd)
    return h_new, kv
