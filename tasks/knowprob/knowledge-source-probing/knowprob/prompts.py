"""Rendering of statements, queries and few-shot knowledge-elicitation prompts."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

OBJECT_SLOT = "{object}"


def render_statement(template: str, subject: str, obj: str) -> str:
    """Full sentence of a fact, e.g. ``"Kestin is situated in Valor."``."""
    return template.format(subject=subject, object=obj)


def render_query(template: str, subject: str) -> str:
    """The statement cut just before the object slot, trailing space removed,
    e.g. ``"Kestin is situated in"``. The model must complete it with the object."""
    if not template.rstrip().endswith(OBJECT_SLOT + "."):
        raise ValueError(f"template must end with '{OBJECT_SLOT}.': {template!r}")
    head = template[: template.rindex(OBJECT_SLOT)]
    return head.format(subject=subject).rstrip()


def elicitation_prompts(kb: pd.DataFrame, templates: Mapping[str, str], n_shots: int = 3,
                        seed: int = 0) -> list[str]:
    """Few-shot prompts that elicit the model's parametric object for each row.

    Each prompt is ``n_shots`` demonstrations of the same relation (other subjects
    with their gold objects) followed by the query of the row's subject.
    """
    rng = np.random.default_rng(seed)
    prompts = []
    for i, row in enumerate(kb.itertuples(index=False)):
        same = [j for j in np.flatnonzero(kb["relation"].to_numpy() == row.relation) if j != i]
        shots = rng.permutation(same)[:n_shots] if same else []
        tpl = templates[row.relation]
        demos = [render_statement(tpl, kb.iloc[j]["subject"], kb.iloc[j]["object"]) for j in shots]
        prompts.append(" ".join(demos + [render_query(tpl, row.subject)]))
    return prompts
