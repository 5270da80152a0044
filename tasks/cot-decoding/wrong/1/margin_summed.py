# wrong: the margins over the answer tokens are summed instead of averaged
def path_confidence(probs: torch.Tensor, span: AnswerSpan) -> float:
    rows = probs[span.start : span.end]
    top = torch.topk(rows, 2, dim=-1).values
    return float((top[:, 0] - top[:, 1]).sum().item())
