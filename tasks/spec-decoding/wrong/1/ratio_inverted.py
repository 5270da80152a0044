# wrong: the acceptance test compares r with q(x)/p(x) instead of p(x)/q(x)
def verify(p: torch.Tensor, q: torch.Tensor, drafted: Sequence[int], r: Sequence[float], u: float) -> tuple[int, int]:
    gamma = len(drafted)
    n = 0
    for i, x in enumerate(drafted):
        if r[i] > float(q[i, x] / p[i, x]):
            break
        n += 1
    if n < gamma:
        return n, sample_index(torch.clamp(p[n] - q[n], min=0.0), u)
    return n, sample_index(p[gamma], u)
