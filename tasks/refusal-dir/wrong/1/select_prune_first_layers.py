# wrong: discards the first 20% of the layers instead of the last
def select_direction(model: TinyChatLM, candidates: torch.Tensor, harmful_val: Batch, harmless_val: Batch,
                     refusal_ids: list[int], cfg: DirectionConfig) -> dict:
    """Select the refusal direction among the candidates.

    Args:
        model: the chat model (left unchanged).
        candidates: (n_post, n_layers, d_model) as returned by `candidate_directions`.
        harmful_val, harmless_val: validation batches.
        refusal_ids: token ids of the refusal tokens.
        cfg: selection settings.

    Returns:
        dict with "pos" (int, index into the first axis of candidates), "layer" (int), "direction" (the selected
        candidate, (d_model,)), and "bypass", "induce", "kl": float64 tensors (n_post, n_layers), the scores
        of every candidate.

    Raises:
        ValueError: if no candidate passes the filters.
    """
    def with_hooks(handles_fn, batch: Batch) -> torch.Tensor:
        handles = handles_fn()
        try:
            return last_position_logits(model, batch)
        finally:
            for h in handles:
                h.remove()

    n_post, n_layers, _ = candidates.shape
    bypass = torch.zeros(n_post, n_layers, dtype=torch.float64)
    induce = torch.zeros_like(bypass)
    kl = torch.zeros_like(bypass)
    base_logp = last_position_logits(model, harmless_val).double().log_softmax(1)
    for i in range(n_post):
        for l in range(n_layers):
            r = candidates[i, l]
            logits = with_hooks(lambda: add_ablation_hooks(model, r), harmful_val)
            bypass[i, l] = refusal_score(logits[:, None, :], refusal_ids).double().mean()
            logits = with_hooks(lambda: add_addition_hooks(model, r, l), harmless_val)
            induce[i, l] = refusal_score(logits[:, None, :], refusal_ids).double().mean()
            logp = with_hooks(lambda: add_ablation_hooks(model, r), harmless_val).double().log_softmax(1)
            kl[i, l] = (base_logp.exp() * (base_logp - logp)).sum(1).mean()
    max_layer = n_layers * (1 - cfg.prune_layer_fraction)
    best = None
    for i in range(n_post):
        for l in range(n_layers):
            if l < n_layers * cfg.prune_layer_fraction or induce[i, l] <= cfg.induce_threshold or kl[i, l] >= cfg.kl_threshold:
                continue
            if best is None or bypass[i, l] < bypass[best]:
                best = (i, l)
    if best is None:
        raise ValueError("no candidate direction passes the filters")
    return {"pos": best[0], "layer": best[1], "direction": candidates[best].clone(),
            "bypass": bypass, "induce": induce, "kl": kl}
