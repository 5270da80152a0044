# wrong: when all k lengths are equal, lambda = 0.5 (the formula with 0/0 read as 0) instead of a zero reward
def length_penalty(lengths, correct, dtype=torch.float64):
    if lengths.dim() != 2 or lengths.shape != correct.shape:
        raise ValueError("lengths and correct must be equal (N, k)")
    lens = lengths.to(dtype)
    shortest = lens.min(dim=1, keepdim=True).values
    span = lens.max(dim=1, keepdim=True).values - shortest
    lam = 0.5 - (lens - shortest) / span.clamp(min=1.0)
    return torch.where(correct.bool(), lam, lam.clamp(max=0.0))
