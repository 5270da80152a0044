# wrong: the beam keeps the candidates with the best score of their last token instead of the best total score
def contrastive_search(expert: TinyLM, amateur: TinyLM, prompt: Sequence[int], cfg: CDConfig) -> SearchResult:
    beam = [Hypothesis([], 0.0)]
    history: list[list[Hypothesis]] = []
    for _ in range(cfg.max_new_tokens):
        candidates = []
        for parent, hyp in enumerate(beam):
            ids = list(prompt) + hyp.tokens
            scores = contrastive_scores(expert.logits(ids)[-1], amateur.logits(ids)[-1], cfg)
            for token in torch.nonzero(torch.isfinite(scores)).flatten().tolist():
                candidates.append((hyp.score + float(scores[token]), parent, token))
        candidates.sort(key=lambda c: (-(c[0] - beam[c[1]].score), c[1], c[2]))
        beam = [Hypothesis(beam[parent].tokens + [token], score) for score, parent, token in candidates[: cfg.beam_size]]
        history.append(beam)
    return SearchResult(beam[0], history)
