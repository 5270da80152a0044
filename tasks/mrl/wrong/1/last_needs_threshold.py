# wrong: the last granularity also has to meet its threshold (unconfident examples keep prediction -1)
def adaptive_classify(logits: Sequence[torch.Tensor], thresholds: Sequence[float]) -> tuple[torch.Tensor, torch.Tensor]:
    n = logits[0].shape[0]
    predictions = torch.empty(n, dtype=torch.int64)
    used = torch.empty(n, dtype=torch.int64)
    done = torch.zeros(n, dtype=torch.bool)
    for i, lg in enumerate(logits):
        conf, pred = torch.softmax(lg, dim=1).max(dim=1)
        take = ~done & (conf >= thresholds[i])
        predictions[take] = pred[take]
        used[take] = i
        done |= take
    return predictions, used
