# wrong: the target rows are taken one position late (row i is the distribution after the first i + 1 drafted tokens)
def speculative_step(target: TinyLM, draft: TinyLM, prefix: Sequence[int], cfg: SpecConfig,
                     stream: UniformStream) -> StepResult:
    drafted: list[int] = []
    q_rows = []
    for _ in range(cfg.gamma):
        q_i = probs_from_logits(draft.logits(list(prefix) + drafted)[-1], cfg.temperature)
        q_rows.append(q_i)
        drafted.append(sample_index(q_i, stream.next()))
    logits = target.logits(list(prefix) + drafted)
    p = probs_from_logits(torch.cat([logits[len(prefix):], logits[-1:]]), cfg.temperature)
    r = [stream.next() for _ in range(cfg.gamma)]
    n, token = verify(p, torch.stack(q_rows), drafted, r, stream.next())
    return StepResult(drafted, n, drafted[:n] + [token])
