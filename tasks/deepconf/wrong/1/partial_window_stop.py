# WRONG: the stop rule also checks the mean of the first tokens before the window is full.
def deepconf_online(lm: ToyLM, prompt: Sequence[int], generator: torch.Generator,
                    cfg: DeepConfConfig) -> OnlineResult:
    on, conf_cfg = cfg.online, cfg.confidence
    if not 1 <= on.warmup_traces <= on.budget:
        raise ValueError("need 1 <= warmup_traces <= budget")

    def lowest(trace: Trace) -> float:
        return float(trace_confidence(token_confidence(trace.logprobs, conf_cfg.top_k), "lowest", conf_cfg))

    def tally(voting: list[int]) -> tuple[Vote, float]:
        vote = weighted_vote([traces[i].answer for i in voting], [weights[i] for i in voting])
        vote = Vote(vote.answer, vote.totals, [voting[v] for v in vote.voters])
        total = sum(vote.totals.values())
        return vote, (vote.totals[vote.answer] / total if vote.answer is not None else 0.0)

    def stop_rule(threshold: float):
        recent: list[float] = []

        def stop(logprobs: torch.Tensor) -> bool:
            recent.append(float(token_confidence(logprobs, conf_cfg.top_k)))
            del recent[:-conf_cfg.window]
            return sum(recent) / len(recent) < threshold
        return stop

    traces = [sample_trace(lm, prompt, generator, cfg.sampling) for _ in range(on.warmup_traces)]
    weights = [lowest(t) for t in traces]
    threshold = float(np.percentile(weights, 100 - on.keep_percent))
    voting = list(range(len(traces)))
    vote, beta = tally(voting)
    while beta < on.consensus and len(traces) < on.budget:
        trace = sample_trace(lm, prompt, generator, cfg.sampling, stop=stop_rule(threshold))
        traces.append(trace)
        weights.append(lowest(trace))
        if not trace.stopped:
            voting.append(len(traces) - 1)
            vote, beta = tally(voting)
    return OnlineResult(vote, threshold, traces, beta)
