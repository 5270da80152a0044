# wrong: the acceptance numbers are drawn one at a time and only until the first rejection
def speculative_step(target: TinyLM, draft: TinyLM, prefix: Sequence[int], cfg: SpecConfig,
                     stream: UniformStream) -> StepResult:
    drafted: list[int] = []
    q_rows = []
    for _ in range(cfg.gamma):
        q_i = probs_from_logits(draft.logits(list(prefix) + drafted)[-1], cfg.temperature)
        q_rows.append(q_i)
        drafted.append(sample_index(q_i, stream.next()))
    logits = target.logits(list(prefix) + drafted)
    p = probs_from_logits(logits[len(prefix) - 1 :], cfg.temperature)
    r = []
    for i, x in enumerate(drafted):
        r.append(stream.next())
        if r[-1] > float(p[i, x] / q_rows[i][x]):
            break
    r += [0.0] * (cfg.gamma - len(r))
    n, token = verify(p, torch.stack(q_rows), drafted, r, stream.next())
    return StepResult(drafted, n, drafted[:n] + [token])
