# WRONG: the token-level reward is the summed entropy itself (sign missing), which rewards high entropy
def entropy_rewards(logits: torch.Tensor, input_ids: torch.Tensor, response_mask: torch.Tensor,
                    kind: str) -> torch.Tensor:
    if kind not in REWARD_KINDS:
        raise ValueError(f"unknown reward {kind!r}")
    logits = logits.detach()
    m = response_mask.to(logits.dtype)
    if kind == "sequence":
        logp = torch.log_softmax(logits, dim=-1).gather(-1, input_ids.unsqueeze(-1)).squeeze(-1)
        return (logp * m).sum(dim=1)
    return (token_entropy(logits) * m).sum(dim=1)
