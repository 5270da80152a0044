# wrong: the aggregated score of an answer is the mean of its paths' confidences, not the sum
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
    if aggregate:
        counts = {}
        for path in paths:
            if path.answer is not None and path.confidence is not None:
                counts[path.answer.text] = counts.get(path.answer.text, 0) + 1
        scores = {a: s / counts[a] for a, s in scores.items()}
    if not scores:
        return None, None, {}
    answer = max(scores, key=lambda a: scores[a])  # first maximum in order of first appearance
    return answer, best[answer].branch, scores
