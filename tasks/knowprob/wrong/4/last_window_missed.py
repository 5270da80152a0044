# WRONG: off-by-one: the last possible position of the object in the prompt is never checked
def parametric_object_absent(prompt: str, parametric_object: str) -> bool:
    obj = word_tokens(parametric_object)
    if not obj:
        return False
    toks = word_tokens(prompt)
    n = len(obj)
    for start in range(len(toks) - n):
        if toks[start:start + n] == obj:
            return False
    return True

