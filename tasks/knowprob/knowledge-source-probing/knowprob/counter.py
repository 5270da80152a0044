"""Counter-parametric knowledge: contexts that contradict what the model knows.

For every example whose parametric object the model produced, we write a context
stating the same fact with a *different* object of the same relation, then ask
the query again. If the model answers with the context's object it used the
contextual knowledge (CK); if it repeats its own object, its parametric knowledge
(PK).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from knowprob.kb import TEMPLATES
from knowprob.prompts import render_query, render_statement
from knowprob.text import normalize_entity


def build_counter_knowledge(df: pd.DataFrame, *, seed: int = 0,
                            templates: Mapping[str, str] | None = None,
                            subject_col: str = "subject", relation_col: str = "relation",
                            object_col: str = "parametric_object") -> pd.DataFrame:
    """Pair every example with a counter-parametric object and a conflicting prompt.

    Exact procedure (the output must be reproducible draw for draw):
        1. For each relation ``r``, the candidate pool ``O_r`` is the list of the
           distinct values of ``object_col`` among the rows of ``df`` with relation
           ``r``, sorted in Python string order.
        2. ``rng = numpy.random.default_rng(seed)``. The rows are visited in their
           order in ``df``. For a row with subject ``s``, relation ``r`` and object
           ``o``, the candidates are the members ``c`` of ``O_r`` with
           ``normalize_entity(c) != normalize_entity(o)``, in pool order. If there
           is none, the row is dropped and no random number is drawn; otherwise
           ``j = int(rng.integers(len(candidates)))`` and the counter object is
           ``candidates[j]``.
        3. The counter prompt is ``render_statement(T, s, o_c) + " " +
           render_query(T, s)`` with ``T = templates[r]`` (default: the
           repository's ``TEMPLATES``).

    Returns:
        A new DataFrame: the kept rows (original order and index labels, all
        original columns) plus the string columns ``"counter_object"`` and
        ``"counter_prompt"``. The input is not modified.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
