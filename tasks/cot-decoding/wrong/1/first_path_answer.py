# wrong: the answer of the first path (the greedy path) that has an answer is chosen, ignoring confidence
def choose_answer(paths: list[DecodedPath], aggregate: bool) -> tuple[str | None, int | None, dict[str, float]]:
    best: dict[str, DecodedPath] = {}
    scores: dict[str, float] = {}
    for path in paths:
        if path.answer is None or path.confidence is None:
            continue
        text = path.answer.text
        if text not in best or path.confidence > best[text].confidence:  # type: ignore[operator]
            best[text] = path
        if aggregate:
            scores[text] = scores.get(text, 0.0) + path.confidence
        else:
            scores[text] = max(scores.get(text, path.confidence), path.confidence)
    if not scores:
        return None, None, {}
    answer = next(iter(scores))
    return answer, best[answer].branch, scores
