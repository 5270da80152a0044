# wrong: the reference log-probs are refreshed from the policy before every inner step (reference = previous step)
def mirror_descent_update(policy, batch, rewards, cfg):
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.lr)
    prompts = batch.prompts.unsqueeze(1).expand(-1, batch.samples_per_problem, -1)
    losses = []
    for _ in range(cfg.inner_steps):
        logprobs = policy.token_logprobs(prompts, batch.responses, batch.lengths)
        current = RolloutBatch(batch.problem_ids, batch.prompts, batch.responses, batch.lengths,
                               logprobs.detach(), batch.correct)
        loss = mirror_descent_loss(logprobs, current, rewards, cfg.objective)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses
