# wrong: the plausibility constraint is applied to the amateur's distribution
def contrastive_scores(expert_logits: torch.Tensor, amateur_logits: torch.Tensor, cfg: CDConfig) -> torch.Tensor:
    expert = torch.log_softmax(expert_logits.to(torch.float64), dim=-1)
    amateur = torch.log_softmax(amateur_logits.to(torch.float64) / cfg.amateur_temperature, dim=-1)
    mask = plausible_tokens(amateur, cfg.alpha)
    return torch.where(mask, expert - amateur, torch.full_like(expert, float("-inf")))
