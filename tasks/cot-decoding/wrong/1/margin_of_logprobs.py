# wrong: the margin is taken between log-probabilities instead of probabilities
def path_confidence(probs: torch.Tensor, span: AnswerSpan) -> float:
    rows = probs[span.start : span.end]
    top = torch.topk(torch.log(rows), 2, dim=-1).values
    return float((top[:, 0] - top[:, 1]).mean().item())
