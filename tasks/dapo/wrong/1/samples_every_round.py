# WRONG: draws all max_rounds rounds before filling the batch (does not stop once n_b >= N).
def dynamic_sampling(sample_round: Callable[[], RolloutBatch], batch_size: int, max_rounds: int) -> RolloutBatch:
    kept: list[RolloutBatch] = []
    for _ in range(max_rounds):
        candidates = sample_round()
        num_correct = candidates.correct.sum(dim=1)
        informative = (num_correct > 0) & (num_correct < candidates.group_size)
        kept.append(candidates.select(informative))
    batch = RolloutBatch.concat(kept)
    if batch.num_groups < batch_size:
        raise RuntimeError("not enough informative groups")
    return batch.select(torch.arange(batch_size))
