# wrong: the scores use raw logits instead of log-probabilities (no log-softmax)
def contrastive_scores(expert_logits: torch.Tensor, amateur_logits: torch.Tensor, cfg: CDConfig) -> torch.Tensor:
    expert = expert_logits.to(torch.float64)
    amateur = amateur_logits.to(torch.float64) / cfg.amateur_temperature
    mask = plausible_tokens(torch.log_softmax(expert, dim=-1), cfg.alpha)
    return torch.where(mask, expert - amateur, torch.full_like(expert, float("-inf")))
