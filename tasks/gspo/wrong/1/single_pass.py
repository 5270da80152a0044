# wrong: ignores updates_per_step (one pass over the mini-batches only)
def optimise_on_batch(batch, policy_logprobs, optimizer, config):
    advantages = group_advantages(batch.rewards, config.adv_eps, config.adv_unbiased_std)
    losses = []
    for index in batch.minibatches(config.minibatch_groups):
        minibatch = batch.select(index)
        loss = policy_loss(policy_logprobs(minibatch), minibatch, advantages[index], config)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
