# wrong: adaptive classification starts from the largest granularity and goes down
def adaptive_classify(logits: Sequence[torch.Tensor], thresholds: Sequence[float]) -> tuple[torch.Tensor, torch.Tensor]:
    n = logits[0].shape[0]
    predictions = torch.empty(n, dtype=torch.int64)
    used = torch.empty(n, dtype=torch.int64)
    done = torch.zeros(n, dtype=torch.bool)
    for i, lg in reversed(list(enumerate(logits))):
        conf, pred = torch.softmax(lg, dim=1).max(dim=1)
        take = ~done & ((conf >= thresholds[i]) | (i == len(logits) - 1))
        predictions[take] = pred[take]
        used[take] = i
        done |= take
    return predictions, used
