# wrong: the search ranks continuations by the expert's log-probability within the plausible set, ignoring the amateur
def contrastive_search(expert: TinyLM, amateur: TinyLM, prompt: Sequence[int], cfg: CDConfig) -> SearchResult:
    beam = [Hypothesis([], 0.0)]
    history: list[list[Hypothesis]] = []
    for _ in range(cfg.max_new_tokens):
        candidates = []
        for parent, hyp in enumerate(beam):
            ids = list(prompt) + hyp.tokens
            lp = torch.log_softmax(expert.logits(ids)[-1], dim=-1)
            scores = torch.where(plausible_tokens(lp, cfg.alpha), lp, torch.full_like(lp, float("-inf")))
            for token in torch.nonzero(torch.isfinite(scores)).flatten().tolist():
                candidates.append((hyp.score + float(scores[token]), parent, token))
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        beam = [Hypothesis(beam[parent].tokens + [token], score) for score, parent, token in candidates[: cfg.beam_size]]
        history.append(beam)
    return SearchResult(beam[0], history)
