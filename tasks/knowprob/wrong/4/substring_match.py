# WRONG: case-insensitive substring test instead of a whole-word match ("Paris" found inside "Parisian").
def parametric_object_absent(prompt: str, parametric_object: str) -> bool:
    obj = " ".join(parametric_object.split()).casefold()
    if not word_tokens(obj):
        return False
    return obj not in " ".join(prompt.split()).casefold()
