# WRONG: filtering keeps the least confident traces.
def deepconf_offline(traces: Sequence[Trace], cfg: DeepConfConfig) -> Vote:
    k, measure = cfg.confidence.top_k, cfg.offline.measure
    answered = [i for i, t in enumerate(traces) if t.answer is not None]
    conf = {i: float(trace_confidence(token_confidence(traces[i].logprobs, k), measure, cfg.confidence))
            for i in answered}
    ranked = sorted(answered, key=lambda i: conf[i])
    kept = sorted(ranked[:-(-cfg.offline.keep_percent * len(answered) // 100)])
    vote = weighted_vote([traces[i].answer for i in kept], [conf[i] for i in kept])
    return Vote(vote.answer, vote.totals, [kept[v] for v in vote.voters])
