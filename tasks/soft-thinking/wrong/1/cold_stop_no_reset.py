# WRONG: the low-entropy counter is not reset by a high-entropy step (counts all low steps)
class ColdStop:
    """Entropy-based early stopping of the thinking phase.

    Args:
        threshold: entropy threshold (nats).
        patience: number of consecutive steps (>= 1).

    Raises:
        ValueError: if patience < 1.
    """

    def __init__(self, threshold: float, patience: int) -> None:
        if patience < 1:
            raise ValueError("patience must be >= 1")
        self.threshold = threshold
        self.patience = patience
        self.count = 0

    def update(self, entropy: float) -> bool:
        """Observe the entropy of one thinking step; returns True when thinking must stop."""
        if entropy < self.threshold:
            self.count += 1
        return self.count >= self.patience

    def reset(self) -> None:
        """Forget every observed step."""
        self.count = 0
