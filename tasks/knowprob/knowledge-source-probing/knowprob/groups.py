"""Entity overlap between relation groups.

Probes are trained on some relation groups and tested on another. If the same
entity (a subject or an object) occurs in both, a probe could succeed by
recognising the entity instead of reading the knowledge source, so we measure
the overlap between every pair of groups.
"""

from __future__ import annotations

import pandas as pd

from knowprob.text import normalize_entity

OVERLAP_COLUMNS = [
    "group_a", "group_b",
    "shared_subjects", "shared_objects", "shared_entities",
    "n_shared_subjects", "n_shared_objects", "n_shared_entities",
]


def relation_group_overlap(df: pd.DataFrame, *, group_col: str = "relation_group",
                           subject_col: str = "subject",
                           object_col: str = "parametric_object") -> pd.DataFrame:
    """Entities shared between every pair of relation groups.

    Entity names are compared after :func:`knowprob.text.normalize_entity`; missing
    values (``None``/NaN) and names that normalise to ``""`` are ignored. For a
    group ``g``: ``S(g)`` = its normalised subjects, ``O(g)`` = its normalised
    objects, ``E(g) = S(g) | O(g)``.

    Returns a DataFrame with one row per unordered pair of distinct groups
    ``a < b`` (group names in sorted order), rows ordered by ``(group_a,
    group_b)``, a fresh ``RangeIndex``, and the columns ``OVERLAP_COLUMNS``:
    ``shared_subjects = sorted(S(a) & S(b))``, ``shared_objects = sorted(O(a) &
    O(b))``, ``shared_entities = sorted(E(a) & E(b))`` (lists of strings; an
    entity that is a subject in one group and an object in the other is shared),
    and the ``n_*`` columns their lengths (ints). Pairs without overlap are
    included (empty lists). Fewer than two groups give an empty DataFrame with
    these columns.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
