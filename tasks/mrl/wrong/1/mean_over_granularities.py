# wrong: the loss averages over granularities instead of summing the weighted losses
def matryoshka_loss(logits: Sequence[torch.Tensor], labels: torch.Tensor, cfg: MRLConfig) -> torch.Tensor:
    return sum(c * torch.nn.functional.cross_entropy(lg, labels) for c, lg in zip(cfg.weights(), logits)) / len(logits)
