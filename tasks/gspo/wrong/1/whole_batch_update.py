# wrong: one update on the whole rollout batch per pass instead of one per mini-batch
def optimise_on_batch(batch, policy_logprobs, optimizer, config):
    advantages = group_advantages(batch.rewards, config.adv_eps, config.adv_unbiased_std)
    losses = []
    for _ in range(config.updates_per_step):
        loss = policy_loss(policy_logprobs(batch), batch, advantages, config)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
