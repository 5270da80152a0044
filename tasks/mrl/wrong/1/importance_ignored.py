# wrong: the importance weights c_m are ignored
def matryoshka_loss(logits: Sequence[torch.Tensor], labels: torch.Tensor, cfg: MRLConfig) -> torch.Tensor:
    return sum(torch.nn.functional.cross_entropy(lg, labels) for lg in logits)
