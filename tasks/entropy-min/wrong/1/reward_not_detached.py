# WRONG: the reward stays attached to the policy's graph (a gradient would flow through the reward)
def entropy_rewards(logits: torch.Tensor, input_ids: torch.Tensor, response_mask: torch.Tensor,
                    kind: str) -> torch.Tensor:
    if kind not in REWARD_KINDS:
        raise ValueError(f"unknown reward {kind!r}")
    m = response_mask.to(logits.dtype)
    if kind == "sequence":
        logp = torch.log_softmax(logits, dim=-1).gather(-1, input_ids.unsqueeze(-1)).squeeze(-1)
        return (logp * m).sum(dim=1)
    return -(token_entropy(logits) * m).sum(dim=1)
