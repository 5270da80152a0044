# WRONG: the bounds of Control are exclusive.
def control(compute: Sequence[float], a_min: float, a_max: float) -> float:
    if not compute or a_min > a_max:
        raise ValueError("need at least one compute amount and a_min <= a_max")
    return sum(1 for a in compute if a_min < a < a_max) / len(compute)
