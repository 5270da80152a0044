# WRONG: averages the documents' distributions uniformly instead of weighting them by softmax(s) (Eq. (2))
def ensemble_next_token_logprobs(lm: nn.Module, x: torch.Tensor, docs: torch.Tensor,
                                 scores: torch.Tensor) -> torch.Tensor:
    b, k, td = docs.shape
    if x.shape[0] != b or scores.shape != (b, k):
        raise ValueError("x, docs and scores must agree in batch size and k")
    contexts = torch.cat([docs, x.unsqueeze(1).expand(b, k, x.shape[1])], dim=2)
    logp = next_token_logprobs(lm, contexts.reshape(b * k, -1)).reshape(b, k, -1)
    return torch.logsumexp(logp, dim=1) - torch.log(torch.tensor(float(k), dtype=logp.dtype))
