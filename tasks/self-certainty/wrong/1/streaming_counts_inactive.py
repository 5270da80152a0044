# WRONG: StreamingScorer accumulates every row at every step, ignoring `active`
class StreamingScorer:
    """The confidence of responses computed while they are sampled, from the logits sampling produces anyway.

    Pass the instance as the `observer` of `sample_responses`; once sampling is over, `scores()` returns what
    `response_scores` gives for the same responses (scored after [BOS, *prompt]).

    Args:
        n: N, the number of responses being sampled (>= 1).
        measure: one of bon.config.MEASURES.

    Raises:
        ValueError: if n < 1 or the measure is unknown.
    """

    def __init__(self, n: int, measure: Measure) -> None:
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r}")
        self.measure = measure
        self.total = torch.zeros(n, dtype=torch.float64)
        self.count = torch.zeros(n, dtype=torch.long)

    def __call__(self, logits: torch.Tensor, tokens: torch.Tensor, active: torch.Tensor) -> None:
        """One generation step (the `Observer` protocol of bon.sampling)."""
        logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
        if self.measure == "self_certainty":
            terms = -(logp + math.log(logp.shape[-1])).mean(dim=-1)
        elif self.measure in ("entropy", "distributional_perplexity"):
            terms = -(logp.exp() * logp).sum(dim=-1)
        else:
            terms = logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
        self.total += terms
        self.count += 1

    def scores(self) -> torch.Tensor:
        """(N,) float64, the confidence of each response (larger means more confident).

        Raises:
            ValueError: if a response has no token yet.
        """
        if bool((self.count == 0).any()):
            raise ValueError("a response has no token yet")
        mean = self.total / self.count.to(torch.float64)
        if self.measure == "entropy":
            return -mean
        if self.measure == "distributional_perplexity":
            return -torch.exp(mean)
        if self.measure == "perplexity":
            return -torch.exp(-mean)
        return mean
