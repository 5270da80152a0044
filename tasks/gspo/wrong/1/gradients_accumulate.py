# wrong: gradients never reset between the mini-batch updates
def optimise_on_batch(batch, policy_logprobs, optimizer, config):
    advantages = group_advantages(batch.rewards, config.adv_eps, config.adv_unbiased_std)
    losses = []
    optimizer.zero_grad()
    for _ in range(config.updates_per_step):
        for index in batch.minibatches(config.minibatch_groups):
            minibatch = batch.select(index)
            loss = policy_loss(policy_logprobs(minibatch), minibatch, advantages[index], config)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
