# WRONG: concatenates all retrieved documents (best first) in front of x and runs the LM once
def ensemble_next_token_logprobs(lm: nn.Module, x: torch.Tensor, docs: torch.Tensor,
                                 scores: torch.Tensor) -> torch.Tensor:
    b, k, td = docs.shape
    if x.shape[0] != b or scores.shape != (b, k):
        raise ValueError("x, docs and scores must agree in batch size and k")
    order = scores.argsort(dim=-1, descending=True)
    ranked = docs.gather(1, order.unsqueeze(-1).expand(b, k, td))
    return next_token_logprobs(lm, torch.cat([ranked.reshape(b, k * td), x], dim=1))
