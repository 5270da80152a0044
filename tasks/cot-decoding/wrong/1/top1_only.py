# wrong: the confidence is the mean top-1 probability, not the top-1 minus top-2 margin
def path_confidence(probs: torch.Tensor, span: AnswerSpan) -> float:
    rows = probs[span.start : span.end]
    top = torch.topk(rows, 2, dim=-1).values
    return float(top[:, 0].mean().item())
