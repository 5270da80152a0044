# WRONG: Performance is the mean accuracy, not the best.
def performance(accuracy: Sequence[float]) -> float:
    if not accuracy:
        raise ValueError("need at least one accuracy")
    return sum(accuracy) / len(accuracy)
