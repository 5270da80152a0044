# WRONG: the EM-FT loss averages the entropy over every position, prompt and padding included, not the response
def em_ft_loss(logits: torch.Tensor, response_mask: torch.Tensor, loss_agg_mode: str) -> torch.Tensor:
    return aggregate_loss(token_entropy(logits), torch.ones_like(response_mask), loss_agg_mode)
