# wrong: a drafted token is accepted whenever p(x) >= q(x) and rejected otherwise, without the random test
def verify(p: torch.Tensor, q: torch.Tensor, drafted: Sequence[int], r: Sequence[float], u: float) -> tuple[int, int]:
    gamma = len(drafted)
    n = 0
    for i, x in enumerate(drafted):
        if float(p[i, x]) < float(q[i, x]):
            break
        n += 1
    if n < gamma:
        return n, sample_index(torch.clamp(p[n] - q[n], min=0.0), u)
    return n, sample_index(p[gamma], u)
