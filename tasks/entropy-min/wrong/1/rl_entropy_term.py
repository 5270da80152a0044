# WRONG: the policy-gradient loss uses the probability-weighted entropy term instead of the sampled token's log-prob
def em_rl_loss(logits: torch.Tensor, input_ids: torch.Tensor, response_mask: torch.Tensor,
               advantages: torch.Tensor, loss_agg_mode: str) -> torch.Tensor:
    return aggregate_loss(advantages.detach().unsqueeze(1) * token_entropy(logits), response_mask, loss_agg_mode)
