# wrong: the cost of a step is (gamma + 1) * c + 1 instead of gamma * c + 1
def walltime_improvement(alpha: float, gamma: int, c: float) -> float:
    return expected_tokens(alpha, gamma) / ((gamma + 1) * c + 1.0)
