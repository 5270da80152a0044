from lmrbench.authoring.mutants import mutants

SRC = '''def f(x, y=2):
    """Docstring is never mutated: 'a' + 1."""
    if x > 0 and y:
        z = -x * y + 1.5
    else:
        z = x ** 2
    return z
'''


def test_every_operator_family_appears_and_is_deterministic():
    ms = mutants(SRC)
    descs = " | ".join(m.description for m in ms)
    for expected in ("Gt -> GtE", "and <-> or", "Add -> Sub", "Mult -> Div", "Pow -> Mult", "constant 1.5 -> 3.0",
                     "drop unary USub", "negate condition", "delete Return statement"):
        assert expected in descs
    assert "constant 2 -> 3" in descs  # the exponent, not the default y=2
    assert [m.source for m in mutants(SRC)] == [m.source for m in ms]
    assert len({m.mutant_id for m in ms}) == len(ms)


def test_mutants_compile_and_differ_from_original():
    for m in mutants(SRC):
        compile(m.source, "<m>", "exec")
        assert m.source != SRC


def test_signature_defaults_are_not_mutated():
    assert all("y=3" not in m.source for m in mutants(SRC))


def test_annotations_are_not_mutated():
    src = "def g(x: int | None = None) -> int | None:\n    y: int | str = 0\n    return x or y\n"
    ms = mutants(src)
    assert ms  # the body still is
    assert all(m.source.startswith("def g(x: int | None=None) -> int | None:\n") for m in ms)  # signature untouched
    assert not any("BitOr" in m.description for m in ms)  # and so is the variable annotation
