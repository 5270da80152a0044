# WRONG: KL in the other direction, KL(pi_theta || pi_ref) instead of KL(pi_ref || pi_theta).
def token_level_stats(
    policy_logits: torch.Tensor,
    reference_logits: torch.Tensor,
    labels: torch.Tensor,
    ignore_index: int = IGNORE_INDEX,
) -> tuple[torch.Tensor, torch.Tensor]:
    policy_logits = policy_logits[:, :-1, :]
    reference_logits = reference_logits[:, :-1, :]
    labels = labels[:, 1:]
    mask = labels != ignore_index
    safe = labels.masked_fill(~mask, 0)
    plp = policy_logits.log_softmax(-1)
    rlp = reference_logits.log_softmax(-1)
    pt = plp.gather(2, safe[..., None]).squeeze(-1)
    rt = rlp.gather(2, safe[..., None]).squeeze(-1)
    margin = ((pt - rt) * mask).sum(-1)
    kl = (plp.exp() * (plp - rlp)).sum(-1)
    return margin, (kl * mask).sum(-1)
