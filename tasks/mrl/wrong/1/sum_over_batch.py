# wrong: the cross-entropy is summed over the batch instead of averaged
def matryoshka_loss(logits: Sequence[torch.Tensor], labels: torch.Tensor, cfg: MRLConfig) -> torch.Tensor:
    return sum(c * torch.nn.functional.cross_entropy(lg, labels, reduction="sum") for c, lg in zip(cfg.weights(), logits))
