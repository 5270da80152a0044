# WRONG: samples the N responses with N calls of sample_responses (n = 1 each)
def best_of_n(model: ToyLM, prompts: Sequence[Sequence[int]], cfg: BestOfNConfig,
              generator: torch.Generator) -> list[BestOfNResult]:
    """Best-of-N for each prompt: sample N responses, score them, choose one answer.

    Args:
        model: the language model.
        prompts: the prompts (token ids, without BOS); may be empty.
        cfg: N, the scoring batch size, streaming or not, sampling and selection settings.
        generator: the random generator all sampling draws from.

    Returns:
        One result per prompt, in order; prompt k's responses are drawn by the k-th call of `sample_responses`.

    Raises:
        ValueError: if cfg.n < 1 or cfg.score_batch_size < 1.
    """
    if cfg.n < 1 or cfg.score_batch_size < 1:
        raise ValueError(f"n and score_batch_size must be >= 1, got {cfg.n}, {cfg.score_batch_size}")
    measure = cfg.selection.measure
    sampled: list[list[list[int]]] = []
    streamed: list[torch.Tensor] = []
    for prompt in prompts:
        scorer = StreamingScorer(cfg.n, measure) if cfg.streaming else None
        sampled.append([sample_responses(model, prompt, 1, cfg.sampling, generator)[0] for _ in range(cfg.n)])
        if scorer is not None:
            batch = collate([prompt] * cfg.n, sampled[-1])
            scorer = None
            streamed.append(response_scores(model(batch.input_ids), batch, measure))
        if scorer is not None:
            streamed.append(scorer.scores())
    if cfg.streaming:
        scores = streamed
    else:
        rows = [(list(p), r) for p, responses in zip(prompts, sampled, strict=True) for r in responses]
        flat = []
        with torch.no_grad():
            for start in range(0, len(rows), cfg.score_batch_size):
                chunk = rows[start:start + cfg.score_batch_size]
                batch = collate([p for p, _ in chunk], [r for _, r in chunk])
                flat.append(response_scores(model(batch.input_ids), batch, measure))
        scores = list(torch.cat(flat).split(cfg.n)) if flat else []
    results = []
    for responses, s in zip(sampled, scores, strict=True):
        answers = [extract_answer(r) for r in responses]
        results.append(BestOfNResult(responses, s.to(torch.float64), answers, select(s, answers, cfg.selection)))
    return results
