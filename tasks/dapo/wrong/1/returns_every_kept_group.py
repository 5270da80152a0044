# WRONG: returns every kept group of the rounds drawn, not exactly batch_size of them.
def dynamic_sampling(sample_round: Callable[[], RolloutBatch], batch_size: int, max_rounds: int) -> RolloutBatch:
    kept: list[RolloutBatch] = []
    num_kept = 0
    for _ in range(max_rounds):
        candidates = sample_round()
        num_correct = candidates.correct.sum(dim=1)
        informative = (num_correct > 0) & (num_correct < candidates.group_size)
        kept.append(candidates.select(informative))
        num_kept += int(informative.sum())
        if num_kept >= batch_size:
            return RolloutBatch.concat(kept)
    raise RuntimeError("not enough informative groups")
