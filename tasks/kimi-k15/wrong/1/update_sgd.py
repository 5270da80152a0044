# wrong: plain SGD with cfg.lr instead of the Adam optimiser the configuration names
def mirror_descent_update(policy, batch, rewards, cfg):
    optimizer = torch.optim.SGD(policy.parameters(), lr=cfg.lr)
    prompts = batch.prompts.unsqueeze(1).expand(-1, batch.samples_per_problem, -1)
    losses = []
    for _ in range(cfg.inner_steps):
        logprobs = policy.token_logprobs(prompts, batch.responses, batch.lengths)
        loss = mirror_descent_loss(logprobs, batch, rewards, cfg.objective)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses
