# WRONG: normalises the weights over the batch axis instead of over the k retrieved documents
def ensemble_next_token_logprobs(lm: nn.Module, x: torch.Tensor, docs: torch.Tensor,
                                 scores: torch.Tensor) -> torch.Tensor:
    b, k, td = docs.shape
    if x.shape[0] != b or scores.shape != (b, k):
        raise ValueError("x, docs and scores must agree in batch size and k")
    contexts = torch.cat([docs, x.unsqueeze(1).expand(b, k, x.shape[1])], dim=2)
    logp = next_token_logprobs(lm, contexts.reshape(b * k, -1)).reshape(b, k, -1)
    log_weights = torch.log_softmax(scores.to(logp.dtype), dim=0)
    return torch.logsumexp(logp + log_weights.unsqueeze(-1), dim=1)
