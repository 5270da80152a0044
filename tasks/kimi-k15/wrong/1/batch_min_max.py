# wrong: min_len and max_len over the whole batch instead of the k responses of each problem
def length_penalty(lengths, correct, dtype=torch.float64):
    if lengths.dim() != 2 or lengths.shape != correct.shape:
        raise ValueError("lengths and correct must be equal (N, k)")
    lens = lengths.to(dtype)
    shortest, longest = lens.min(), lens.max()
    if longest == shortest:
        return torch.zeros_like(lens)
    lam = 0.5 - (lens - shortest) / (longest - shortest)
    return torch.where(correct.bool(), lam, lam.clamp(max=0.0))
