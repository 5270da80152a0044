# wrong: the GRPO baseline run with GSPO's clipping ranges instead of grpo_clip_eps
def policy_loss(logprobs, batch, advantages, config):
    mask = batch.response_mask()
    if config.loss_type == "gspo":
        return gspo_loss(logprobs, batch.old_logprobs, advantages, mask, config.clip_eps_low, config.clip_eps_high)
    if config.loss_type == "gspo_token":
        return gspo_token_loss(logprobs, batch.old_logprobs, advantages.unsqueeze(-1).expand_as(logprobs), mask,
                               config.clip_eps_low, config.clip_eps_high)
    if config.loss_type == "grpo":
        return grpo_loss(logprobs, batch.old_logprobs, advantages, mask, config.clip_eps_high)
    raise ValueError(f"unknown loss_type {config.loss_type!r}")
