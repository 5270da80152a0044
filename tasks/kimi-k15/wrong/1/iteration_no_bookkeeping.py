# wrong: the sampler records the outcomes only when the prioritised strategy is used
def rl_iteration(cfg, policy, problems, sampler, iteration, generator):
    ids = draw_problems(cfg, problems, sampler, iteration, generator)
    batch = collect(policy, problems, ids, cfg.samples_per_problem, cfg.policy.max_response_len, generator)
    if cfg.sampler.strategy == "prioritized":
        sampler.update(batch.problem_ids, batch.correct)
    rewards = shaped_rewards(batch, cfg.objective, iteration, next(policy.parameters()).dtype)
    losses = mirror_descent_update(policy, batch, rewards, cfg)
    return IterationStats(problem_ids=ids, accuracy=float(batch.correct.float().mean()),
                          mean_length=float(batch.lengths.float().mean()), mean_reward=float(rewards.mean()),
                          losses=losses)
