# WRONG: "token-level KL" computed only from the observed token, p_ref(y_t) * (log p_ref(y_t) - log p_theta(y_t)),
# instead of over the whole next-token distribution.
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
    kl = rt.exp() * (rt - pt)
    return margin, (kl * mask).sum(-1)
