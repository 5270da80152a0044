# wrong: the confidence is the largest logit instead of the largest softmax probability
def adaptive_classify(logits: Sequence[torch.Tensor], thresholds: Sequence[float]) -> tuple[torch.Tensor, torch.Tensor]:
    n = logits[0].shape[0]
    predictions = torch.empty(n, dtype=torch.int64)
    used = torch.empty(n, dtype=torch.int64)
    done = torch.zeros(n, dtype=torch.bool)
    for i, lg in enumerate(logits):
        conf, pred = lg.max(dim=-1)
        take = ~done & ((conf >= thresholds[i]) | (i == len(logits) - 1))
        predictions[take] = pred[take]
        used[take] = i
        done |= take
    return predictions, used
