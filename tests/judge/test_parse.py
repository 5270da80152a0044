import pytest

from lmrbench.judge.parse import VerdictError, parse_verdict


@pytest.mark.parametrize(
    ("answer", "category"),
    [
        ('{"category": 3, "rationale": "Equivalent to the reference."}', 3),
        ('```json\n{"category": 2, "rationale": "Sums where the paper averages."}\n```', 2),
        ('After comparing both, my verdict:\n{"category": 1, "rationale": "Wrong formula."}\nThanks.', 1),
        ('{"category": "3", "rationale": "Same maths."}', 3),
        ('Draft: {"category": 1, "rationale": "x"} ... on reflection: {"category": 2, "rationale": "axis"}', 2),
        ('{"category": 2, "rationale": "uses {x} braces and \\"quotes\\" inside"}', 2),
    ],
)
def test_valid_shapes(answer, category):
    assert parse_verdict(answer).category == category


@pytest.mark.parametrize(
    ("answer", "refusal", "message"),
    [
        ('{"category": 4, "rationale": "great"}', False, "category"),
        ('{"category": "good", "rationale": "great"}', False, "category"),
        ('{"category": 3}', False, "rationale"),
        ('{"category": 3, "rationale": "the candidate matches the ref', False, "truncated"),
        ("Category 3: it is correct.", False, "no JSON"),
        ("I can't evaluate code that might be harmful.", True, "refused"),
        ("{category: 3, rationale: 'single quotes'}", False, "invalid JSON"),
    ],
)
def test_failures_are_failures_never_grades(answer, refusal, message):
    with pytest.raises(VerdictError) as exc:
        parse_verdict(answer)
    assert exc.value.refusal is refusal and message in str(exc.value)
