# WRONG: the loss is +A log p (it would minimise the expected reward)
def em_rl_loss(logits: torch.Tensor, input_ids: torch.Tensor, response_mask: torch.Tensor,
               advantages: torch.Tensor, loss_agg_mode: str) -> torch.Tensor:
    logp = torch.log_softmax(logits, dim=-1).gather(-1, input_ids.unsqueeze(-1)).squeeze(-1)
    return aggregate_loss(advantages.detach().unsqueeze(1) * logp, response_mask, loss_agg_mode)
