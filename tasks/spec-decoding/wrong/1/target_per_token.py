# wrong: the target model is run once per drafted token (on each prefix) instead of once per step
def speculative_step(target: TinyLM, draft: TinyLM, prefix: Sequence[int], cfg: SpecConfig,
                     stream: UniformStream) -> StepResult:
    drafted: list[int] = []
    q_rows = []
    for _ in range(cfg.gamma):
        q_i = probs_from_logits(draft.logits(list(prefix) + drafted)[-1], cfg.temperature)
        q_rows.append(q_i)
        drafted.append(sample_index(q_i, stream.next()))
    p = torch.stack([probs_from_logits(target.logits(list(prefix) + drafted[:i])[-1], cfg.temperature)
                     for i in range(cfg.gamma + 1)])
    r = [stream.next() for _ in range(cfg.gamma)]
    n, token = verify(p, torch.stack(q_rows), drafted, r, stream.next())
    return StepResult(drafted, n, drafted[:n] + [token])
