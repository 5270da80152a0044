"""Probe for knowprob/4: parametric_object_absent. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_in_prompt.py add the hand-checked answers."""

import json
from pathlib import Path

from knowprob.prompt_checks import parametric_object_absent
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"

PROMPT = ("Kestin is located in Paris. Marnu is located in New York. "
          "Dosel is located in")
HAND_OBJECTS = ["Paris", "paris", "PARIS.", "New York", "new   york", "New-York", "York", "Pari", "aris",
                "Parisian", "York New", "Paris York", "Valor", "Dosel", "located in"]
NO_TOKENS = ["", "   ", ".", "--", "?!"]


def absent(prompt, obj):
    """The answer if it is a builtin bool (the old tests used `is True` / `is False`), else a description."""
    r = parametric_object_absent(prompt, obj)
    return r if type(r) is bool else f"not a bool: {type(r).__name__} {r!r}"[:200]


@case(compare="exact")
def matches_reference_on_random_prompts():
    cases = json.loads((FIXTURES / "in_prompt.json").read_text())["cases"]
    return {"absent": [absent(c["prompt"], c["object"]) for c in cases]}


@case(params=HAND_OBJECTS, ids=HAND_OBJECTS, compare="exact")
def hand_checked_examples(obj):
    return {"object": obj, "absent": absent(PROMPT, obj)}


@case(compare="exact")
def docstring_examples():
    return {"paris_in_text": absent("Rome is the capital of Italy. Lyon is in paris.", "Paris"),
            "parisian": absent("He is Parisian by birth.", "Paris"),
            "new_york": absent("Visit new york soon.", "New York"),
            "new_jersey_york": absent("New Jersey, York and Leeds.", "New York")}


@case(params=NO_TOKENS, ids=[repr(o) for o in NO_TOKENS], compare="exact")
def object_without_word_tokens_is_not_absent(obj):
    return {"in_prompt": absent(PROMPT, obj), "in_empty": absent("", obj)}


@case(compare="exact")
def empty_or_shorter_prompt():
    return {"empty_prompt": absent("", "Paris"), "longer_object": absent("Paris", "Paris Saint Germain"),
            "same": absent("Paris", "Paris")}


@case(compare="exact")
def object_at_prompt_boundaries():
    return {"first_word": absent("Valor is nice", "Valor"), "last_word": absent("It is in Valor", "valor"),
            "last_two_words": absent("It is in Valor", "in valor"),
            "wrong_order": absent("It is in Valor", "Valor is")}


@case(compare="exact")
def unicode_case_folding_and_word_characters():
    return {"sharp_s": absent("Die Straße ist lang.", "STRASSE"),
            "accents": absent("Il vient de São Paulo.", "são paulo"),
            "accent_dropped": absent("Il vient de São Paulo.", "Sao Paulo")}


@case(compare="exact")
def returns_builtin_bool():
    return {"absent_type": type(parametric_object_absent(PROMPT, "Valor")).__name__,
            "present_type": type(parametric_object_absent(PROMPT, "Paris")).__name__}
