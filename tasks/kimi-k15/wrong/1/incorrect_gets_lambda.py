# wrong: incorrect responses get lambda too (no min(0, lambda))
def length_penalty(lengths, correct, dtype=torch.float64):
    if lengths.dim() != 2 or lengths.shape != correct.shape:
        raise ValueError("lengths and correct must be equal (N, k)")
    lens = lengths.to(dtype)
    shortest = lens.min(dim=1, keepdim=True).values
    span = lens.max(dim=1, keepdim=True).values - shortest
    same = span == 0
    lam = 0.5 - (lens - shortest) / torch.where(same, torch.ones_like(span), span)
    return lam.masked_fill(same, 0.0)
