"""Hidden tests for knowprob/4: parametric_object_absent."""

import json
from pathlib import Path

import pytest

from knowprob.prompt_checks import parametric_object_absent

FIXTURES = Path(__file__).parent / "fixtures"

PROMPT = ("Kestin is located in Paris. Marnu is located in New York. "
          "Dosel is located in")


def test_matches_reference_on_random_prompts():
    cases = json.loads((FIXTURES / "in_prompt.json").read_text())["cases"]
    assert len(cases) >= 300
    assert 0 < sum(c["expected"] for c in cases) < len(cases)
    bad = [(c["prompt"], c["object"], c["expected"]) for c in cases
           if parametric_object_absent(c["prompt"], c["object"]) is not c["expected"]]
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"


@pytest.mark.parametrize("obj,expected", [
    ("Paris", False),        # a demonstration's object, verbatim
    ("paris", False),        # case-folded comparison
    ("PARIS.", False),       # punctuation only separates words
    ("New York", False),     # multi-word object, contiguous in the prompt
    ("new   york", False),   # whitespace inside the object does not matter
    ("New-York", False),     # "-" separates words like a space
    ("York", False),         # a word of a multi-word name still occurs
    ("Pari", True),          # a prefix of a word is not an occurrence
    ("aris", True),          # nor a suffix
    ("Parisian", True),      # nor a longer word
    ("York New", True),      # words present but in the other order
    ("Paris York", True),    # words present but not adjacent
    ("Valor", True),         # plainly absent
    ("Dosel", False),        # the query subject is part of the prompt too
    ("located in", False),
])
def test_hand_checked_examples(obj, expected):
    assert parametric_object_absent(PROMPT, obj) is expected


def test_docstring_examples():
    assert parametric_object_absent("Rome is the capital of Italy. Lyon is in paris.", "Paris") is False
    assert parametric_object_absent("He is Parisian by birth.", "Paris") is True
    assert parametric_object_absent("Visit new york soon.", "New York") is False
    assert parametric_object_absent("New Jersey, York and Leeds.", "New York") is True


@pytest.mark.parametrize("obj", ["", "   ", ".", "--", "?!"])
def test_object_without_word_tokens_is_not_absent(obj):
    assert parametric_object_absent(PROMPT, obj) is False
    assert parametric_object_absent("", obj) is False


def test_empty_or_shorter_prompt():
    assert parametric_object_absent("", "Paris") is True
    assert parametric_object_absent("Paris", "Paris Saint Germain") is True
    assert parametric_object_absent("Paris", "Paris") is False


def test_object_at_prompt_boundaries():
    assert parametric_object_absent("Valor is nice", "Valor") is False     # first word
    assert parametric_object_absent("It is in Valor", "valor") is False     # last word
    assert parametric_object_absent("It is in Valor", "in valor") is False  # last two words
    assert parametric_object_absent("It is in Valor", "Valor is") is True


def test_unicode_case_folding_and_word_characters():
    # str.casefold maps "ß" to "ss"; accented letters are word characters
    assert parametric_object_absent("Die Straße ist lang.", "STRASSE") is False
    assert parametric_object_absent("Il vient de São Paulo.", "são paulo") is False
    assert parametric_object_absent("Il vient de São Paulo.", "Sao Paulo") is True


def test_returns_builtin_bool():
    assert type(parametric_object_absent(PROMPT, "Valor")) is bool
    assert type(parametric_object_absent(PROMPT, "Paris")) is bool
