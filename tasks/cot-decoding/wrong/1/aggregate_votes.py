# wrong: aggregation counts the paths of each answer (majority vote) instead of summing confidences
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
            scores[text] = scores.get(text, 0.0) + 1.0
        else:
            scores[text] = max(scores.get(text, path.confidence), path.confidence)
    if not scores:
        return None, None, {}
    answer = max(scores, key=lambda a: scores[a])  # first maximum in order of first appearance
    return answer, best[answer].branch, scores
