# wrong: positions counted from 1 in the XOR of Eq. (8)
def fenwick_levels(T: int, device: torch.device | None = None) -> torch.Tensor:
    """The level of every key position relative to every query position.

    T: sequence length (at least 1).
    Returns an int64 tensor of shape (T, T): entry [t, s] is the level l(t, s) of position s for the query at
    position t (positions counted from 0) when s <= t, and -1 when s > t.
    """
    t = torch.arange(1, T + 1, device=device)
    x = t[:, None] ^ t[None, :]
    lev = torch.zeros(T, T, dtype=torch.long, device=device)
    b = 0
    while (1 << b) <= T:
        lev = torch.where(x >= (1 << b), b + 1, lev)
        b += 1
    return lev.masked_fill(~causal_mask(T, device), -1)
