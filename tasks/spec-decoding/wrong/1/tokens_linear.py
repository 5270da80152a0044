# wrong: the expected tokens per step are 1 + gamma * alpha (each drafted token counted independently of the earlier ones)
def expected_tokens(alpha: float, gamma: int) -> float:
    if alpha >= 1.0:
        return float(gamma + 1)
    return 1.0 + gamma * alpha
