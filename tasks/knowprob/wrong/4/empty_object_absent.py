# WRONG: an object without word tokens is reported as absent (kept) instead of not absent
def parametric_object_absent(prompt: str, parametric_object: str) -> bool:
    obj = word_tokens(parametric_object)
    if not obj:
        return True
    toks = word_tokens(prompt)
    n = len(obj)
    for start in range(len(toks)):
        if toks[start:start + n] == obj:
            return False
    return True

