# WRONG: the policy-gradient term uses each response's mean log-probability (one weight per response, not per token)
def em_rl_loss(logits: torch.Tensor, input_ids: torch.Tensor, response_mask: torch.Tensor,
               advantages: torch.Tensor, loss_agg_mode: str) -> torch.Tensor:
    logp = torch.log_softmax(logits, dim=-1).gather(-1, input_ids.unsqueeze(-1)).squeeze(-1)
    m = response_mask.to(logp.dtype)
    seq = (logp * m).sum(dim=1) / m.sum(dim=1)
    return -(advantages.detach() * seq).mean()
