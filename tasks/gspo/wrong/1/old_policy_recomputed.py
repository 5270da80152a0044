# wrong: pi_old taken as the current policy at each update (detached), so every ratio is 1 and nothing is clipped
def optimise_on_batch(batch, policy_logprobs, optimizer, config):
    advantages = group_advantages(batch.rewards, config.adv_eps, config.adv_unbiased_std)
    losses = []
    for _ in range(config.updates_per_step):
        for index in batch.minibatches(config.minibatch_groups):
            minibatch = batch.select(index)
            logprobs = policy_logprobs(minibatch)
            minibatch = RolloutBatch(minibatch.prompts, minibatch.answers, minibatch.responses, minibatch.lengths,
                                     logprobs.detach(), minibatch.correct, minibatch.rewards)
            loss = policy_loss(logprobs, minibatch, advantages[index], config)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
