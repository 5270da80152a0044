# WRONG: returns the groups kept so far when max_rounds runs out, instead of raising RuntimeError.
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
            break
    batch = RolloutBatch.concat(kept)
    return batch.select(torch.arange(min(batch_size, batch.num_groups)))
