# wrong: after a rejection the token is sampled from p itself instead of the residual max(0, p - q)
def verify(p: torch.Tensor, q: torch.Tensor, drafted: Sequence[int], r: Sequence[float], u: float) -> tuple[int, int]:
    gamma = len(drafted)
    n = 0
    for i, x in enumerate(drafted):
        if r[i] > float(p[i, x] / q[i, x]):
            break
        n += 1
    if n < gamma:
        return n, sample_index(p[n], u)
    return n, sample_index(p[gamma], u)
