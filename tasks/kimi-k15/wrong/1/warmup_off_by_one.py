# wrong: the length reward starts one iteration late (iteration > length_warmup_iters)
def shaped_rewards(batch, cfg, iteration, dtype=torch.float64):
    reward = batch.correct.to(dtype)
    if iteration > cfg.length_warmup_iters:
        reward = reward + cfg.length_penalty_weight * length_penalty(batch.lengths, batch.correct, dtype)
    return reward
