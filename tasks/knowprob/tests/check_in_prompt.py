"""Trusted checks for knowprob/4 (never enter the sandbox): the hand-checked answers, on the outputs
probe_in_prompt.py emitted. The default comparison with the reference's outputs has already passed."""

from lmrbench.checks import check, equal, expect

HAND_EXPECTED = {
    "Paris": False,        # a demonstration's object, verbatim
    "paris": False,        # case-folded comparison
    "PARIS.": False,       # punctuation only separates words
    "New York": False,     # multi-word object, contiguous in the prompt
    "new   york": False,   # whitespace inside the object does not matter
    "New-York": False,     # "-" separates words like a space
    "York": False,         # a word of a multi-word name still occurs
    "Pari": True,          # a prefix of a word is not an occurrence
    "aris": True,          # nor a suffix
    "Parisian": True,      # nor a longer word
    "York New": True,      # words present but in the other order
    "Paris York": True,    # words present but not adjacent
    "Valor": True,         # plainly absent
    "Dosel": False,        # the query subject is part of the prompt too
    "located in": False,
}


def items(out, key):
    """The elements of an emitted list (the probe runner flattens a list to `key.0`, `key.1`, ...)."""
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def answer(out, key, want: bool) -> None:
    """The answer is the builtin bool `want` (`is True` / `is False` in the old tests)."""
    got = out[key]
    expect(type(got) is bool and got is want, f"{key}: got {got!r}, want {want}")


@check("matches_reference_on_random_prompts")
def fixture_guard(out, ref):
    # guards the fixtures themselves (the reference's run): enough prompts, both answers present
    expected = items(ref, "absent")
    expect(len(expected) >= 300, f"only {len(expected)} fixture prompts")
    expect(0 < sum(v is True for v in expected) < len(expected), "the fixtures do not have both answers")
    for i, want in enumerate(expected):
        answer(out, f"absent.{i}", want)


@check("hand_checked_examples*")
def hand_checked_examples(out, ref):
    obj = ref["object"]
    expect(obj in HAND_EXPECTED, f"no hand-checked answer for {obj!r}")
    answer(out, "absent", HAND_EXPECTED[obj])


@check("docstring_examples")
def docstring_examples(out, ref):
    answer(out, "paris_in_text", False)
    answer(out, "parisian", True)
    answer(out, "new_york", False)
    answer(out, "new_jersey_york", True)


@check("object_without_word_tokens_is_not_absent*")
def object_without_word_tokens_is_not_absent(out, ref):
    answer(out, "in_prompt", False)
    answer(out, "in_empty", False)


@check("empty_or_shorter_prompt")
def empty_or_shorter_prompt(out, ref):
    answer(out, "empty_prompt", True)
    answer(out, "longer_object", True)
    answer(out, "same", False)


@check("object_at_prompt_boundaries")
def object_at_prompt_boundaries(out, ref):
    answer(out, "first_word", False)      # first word
    answer(out, "last_word", False)       # last word
    answer(out, "last_two_words", False)  # last two words
    answer(out, "wrong_order", True)


@check("unicode_case_folding_and_word_characters")
def unicode_case_folding_and_word_characters(out, ref):
    # str.casefold maps "ß" to "ss"; accented letters are word characters
    answer(out, "sharp_s", False)
    answer(out, "accents", False)
    answer(out, "accent_dropped", True)


@check("returns_builtin_bool")
def returns_builtin_bool(out, ref):
    equal(out["absent_type"], "bool", what="type of the answer for an absent object")
    equal(out["present_type"], "bool", what="type of the answer for a present object")
