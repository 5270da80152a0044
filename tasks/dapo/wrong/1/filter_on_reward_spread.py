# WRONG: keeps the groups whose rewards are not all equal, instead of those with 0 < #correct < G.
def dynamic_sampling(sample_round: Callable[[], RolloutBatch], batch_size: int, max_rounds: int) -> RolloutBatch:
    kept: list[RolloutBatch] = []
    num_kept = 0
    for _ in range(max_rounds):
        candidates = sample_round()
        informative = candidates.rewards.std(dim=1) > 0
        kept.append(candidates.select(informative))
        num_kept += int(informative.sum())
        if num_kept >= batch_size:
            return RolloutBatch.concat(kept).select(torch.arange(batch_size))
    raise RuntimeError("not enough informative groups")
