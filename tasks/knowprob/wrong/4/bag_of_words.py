# WRONG: every object word present anywhere in the prompt counts as an occurrence (not a contiguous run)
def parametric_object_absent(prompt: str, parametric_object: str) -> bool:
    obj = word_tokens(parametric_object)
    if not obj:
        return False
    toks = set(word_tokens(prompt))
    return not all(w in toks for w in obj)

