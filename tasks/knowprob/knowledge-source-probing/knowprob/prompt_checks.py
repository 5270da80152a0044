"""Checks on the knowledge-elicitation prompts.

The parametric object is what the model generates for a few-shot query. If that
object already appears in the prompt (for instance as the object of one of the
demonstrations), the model may simply have copied it, and the answer is not
evidence of parametric knowledge; such examples are discarded.
"""

from __future__ import annotations

from knowprob.text import word_tokens


def parametric_object_absent(prompt: str, parametric_object: str) -> bool:
    """Whether ``parametric_object`` does NOT occur in ``prompt``.

    Both strings are split with :func:`knowprob.text.word_tokens` (case-folded word
    tokens; punctuation and whitespace only separate words). The object occurs in
    the prompt when its token sequence appears as a contiguous run of the
    prompt's token sequence (so ``"Paris"`` occurs in ``"... in paris."`` but not
    in ``"... Parisian ..."``, and ``"New York"`` occurs in ``"new york"`` but not
    in ``"New Jersey, York"``).

    An object with no word token (empty or punctuation only) cannot be checked
    and is reported as not absent (``False``), so that the example is discarded.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
