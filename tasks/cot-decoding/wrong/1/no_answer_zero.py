# wrong: a path without an answer gets confidence 0 over its whole path instead of being left out
def score_paths(paths: list[DecodedPath], tokenizer: Tokenizer) -> list[DecodedPath]:
    for path in paths:
        path.answer = find_answer(path.tokens, tokenizer)
        path.confidence = 0.0 if path.answer is None else path_confidence(path.probs, path.answer)
    return paths
