# wrong: the confidence averages the margins over the whole path, not the answer tokens
def score_paths(paths: list[DecodedPath], tokenizer: Tokenizer) -> list[DecodedPath]:
    for path in paths:
        path.answer = find_answer(path.tokens, tokenizer)
        path.confidence = None if path.answer is None else path_confidence(path.probs, type(path.answer)(0, len(path.tokens), path.answer.text))
    return paths
