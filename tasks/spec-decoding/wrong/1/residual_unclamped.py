# wrong: the corrected token is sampled from p - q without clamping the negative part at zero
def verify(p: torch.Tensor, q: torch.Tensor, drafted: Sequence[int], r: Sequence[float], u: float) -> tuple[int, int]:
    gamma = len(drafted)
    n = 0
    for i, x in enumerate(drafted):
        if r[i] > float(p[i, x] / q[i, x]):
            break
        n += 1
    if n < gamma:
        return n, sample_index(torch.abs(p[n] - q[n]), u)
    return n, sample_index(p[gamma], u)
