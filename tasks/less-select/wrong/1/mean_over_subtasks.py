# WRONG: scores by the mean over subtasks instead of the maximum
def less_select(
    model: TinyLoRALM,
    checkpoints: list[Checkpoint],
    train: list[Example],
    validation: dict[str, list[Example]],
    projection: torch.Tensor,
    fraction: float,
) -> Selection:
    """Select the pool examples most influential on the target subtasks (Section 2.3 of paper.md, steps 2 and 3).

    Args:
        model, train, validation, projection: as in `checkpoint_features`.
        checkpoints: the N warmup checkpoints.
        fraction: share of the pool to select: the max(1, floor(fraction * n)) highest scores; equal scores
            are ranked by position in the pool, lower first.
    Returns:
        Selection.
    Raises:
        ValueError: if there is no checkpoint, no subtask, an empty pool, or fraction is not in (0, 1].
    """
    if not checkpoints or not validation or not train or not 0.0 < fraction <= 1.0:
        raise ValueError("need checkpoints, subtasks, a non-empty pool and 0 < fraction <= 1")
    feats = [checkpoint_features(model, c, train, validation, projection) for c in checkpoints]
    lrs = torch.tensor([c.lr for c in checkpoints], dtype=torch.float64)
    per_subtask = influence_scores(torch.stack([f[0] for f in feats]), torch.stack([f[1] for f in feats]), lrs)
    scores = per_subtask.mean(dim=1)
    k = max(1, int(fraction * len(train)))
    order = sorted(range(len(train)), key=lambda i: (-float(scores[i]), i))
    return Selection(torch.tensor(order[:k], dtype=torch.int64), scores, per_subtask)
