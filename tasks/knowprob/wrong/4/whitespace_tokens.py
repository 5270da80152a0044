# WRONG: words are split on whitespace only, so punctuation sticks to words ("Paris." != "Paris").
def parametric_object_absent(prompt: str, parametric_object: str) -> bool:
    obj = parametric_object.casefold().split()
    if not obj:
        return False
    toks = prompt.casefold().split()
    n = len(obj)
    for start in range(len(toks) - n + 1):
        if toks[start:start + n] == obj:
            return False
    return True
