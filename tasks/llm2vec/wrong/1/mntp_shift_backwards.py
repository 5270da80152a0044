# WRONG: predicts the token at position i from position i + 1
def mntp_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    pred = logits[:, 1:].reshape(-1, logits.shape[-1])
    target = labels[:, :-1].reshape(-1)
    return F.cross_entropy(pred, target, ignore_index=IGNORE_INDEX)
