"""Removing examples whose object is (nearly) contained in the subject.

When the object can be read off the subject ("Valor Motors is produced by Valor"),
the model needs neither its parametric knowledge nor the context to answer, so
such examples say nothing about the knowledge source and are dropped. Closeness
is measured with the Jaro-Winkler string similarity.
"""

from __future__ import annotations

import pandas as pd

from knowprob.text import normalize_entity


def jaro_winkler_similarity(a: str, b: str, prefix_weight: float = 0.1,
                            max_prefix: int = 4) -> float:
    """Jaro-Winkler similarity of two strings, in [0, 1] (case-sensitive).

    Conventions (all of them matter):
        * both strings empty -> 1.0; exactly one empty -> 0.0.
        * match window ``w = max(0, max(len(a), len(b)) // 2 - 1)``.
        * matching: scan ``a`` left to right; ``a[i]`` matches the first (lowest
          index) not yet matched ``b[j]`` with ``b[j] == a[i]`` and ``|i - j| <= w``.
        * ``m`` = number of matches; if ``m == 0`` the similarity is 0.0.
        * ``k`` = number of positions at which the matched characters of ``a`` (in
          ``a``'s order) and the matched characters of ``b`` (in ``b``'s order)
          differ; transpositions ``t = k / 2`` (true division, not floored).
        * ``jaro = (m / len(a) + m / len(b) + (m - t) / m) / 3``.
        * ``l`` = length of the common prefix of ``a`` and ``b``, at most
          ``max_prefix``; result ``jaro + l * prefix_weight * (1 - jaro)``.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def drop_subject_object_overlap(df: pd.DataFrame, threshold: float = 0.9, *,
                                subject_col: str = "subject",
                                object_col: str = "parametric_object") -> pd.DataFrame:
    """Drop the examples whose object overlaps their subject.

    For each row, with ``s = normalize_entity(subject)`` and ``o =
    normalize_entity(object)``, the overlap score is

        ``score = max(JW(s, o), max over words w of s.split(" ") of JW(w, o))``

    where ``JW(x, y) = jaro_winkler_similarity(x, y)`` with the default prefix
    parameters. A row is dropped
    when ``score >= threshold``.

    Returns a new DataFrame with the kept rows in their original order, with their
    original index labels, and with an extra float column
    ``"subject_object_similarity"`` holding their score. The input is not modified.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
