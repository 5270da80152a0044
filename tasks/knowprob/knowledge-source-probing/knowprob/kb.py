"""A synthetic ParaRel-like knowledge base.

Real experiments use ParaRel triples (subject, relation, object) with one
natural-language template per relation. Here the entities are made-up names
generated from syllables with a fixed seed, so everything runs offline.

Relations are gathered into *relation groups*: relations whose objects are of the
same kind (places, languages, organisations, professions). Probes are evaluated
on a relation group that was not seen in training.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Relation:
    rel_id: str
    template: str  # must end with "{object}."
    group: str


RELATIONS: dict[str, Relation] = {
    r.rel_id: r
    for r in [
        Relation("P17", "{subject} is located in the country of {object}.", "location"),
        Relation("P131", "{subject} is situated in {object}.", "location"),
        Relation("P19", "{subject} was born in {object}.", "location"),
        Relation("P37", "The official language of {subject} is {object}.", "language"),
        Relation("P103", "The native language of {subject} is {object}.", "language"),
        Relation("P176", "{subject} is produced by {object}.", "organisation"),
        Relation("P127", "{subject} is owned by {object}.", "organisation"),
        Relation("P106", "{subject} works as a {object}.", "profession"),
        Relation("P101", "{subject} works in the field of {object}.", "profession"),
    ]
}

TEMPLATES: dict[str, str] = {rid: r.template for rid, r in RELATIONS.items()}
RELATION_GROUPS: dict[str, str] = {rid: r.group for rid, r in RELATIONS.items()}

_SYLLABLES = [
    "va", "lor", "kes", "tin", "mar", "do", "ri", "sel", "ba", "nu", "qua", "ther",
    "os", "pel", "zan", "mi", "ka", "ro", "bel", "fen", "gor", "li", "sta", "vi",
]


def make_name(rng: np.random.Generator, n_syllables: int | None = None) -> str:
    """A pronounceable made-up name such as ``"Kestinra"``."""
    k = int(rng.integers(2, 4)) if n_syllables is None else n_syllables
    parts = [_SYLLABLES[int(i)] for i in rng.integers(len(_SYLLABLES), size=k)]
    return "".join(parts).capitalize()


def make_synthetic_kb(n_subjects_per_relation: int = 8, n_objects_per_group: int = 5,
                      seed: int = 0) -> pd.DataFrame:
    """Build a table of gold triples.

    Returns a DataFrame with columns ``subject``, ``relation``, ``relation_group``,
    ``object`` (the gold object). Objects are drawn from a small pool per relation
    group, so each relation has several subjects sharing an object. A few subjects
    embed their object in their name (``"Valor Motors"`` produced by ``"Valor"``), and
    a few entities appear in two relation groups, as in real data.
    """
    rng = np.random.default_rng(seed)
    groups = sorted({r.group for r in RELATIONS.values()})
    pools = {g: sorted({make_name(rng) for _ in range(n_objects_per_group)}) for g in groups}
    rows = []
    for rid in sorted(RELATIONS):
        rel = RELATIONS[rid]
        pool = pools[rel.group]
        for _ in range(n_subjects_per_relation):
            obj = pool[int(rng.integers(len(pool)))]
            u = rng.random()
            if u < 0.15:
                subject = f"{obj} {make_name(rng, 2)}"  # object embedded in the subject
            elif u < 0.3:
                other = groups[(groups.index(rel.group) + 1) % len(groups)]
                subject = pools[other][int(rng.integers(len(pools[other])))]  # cross-group entity
            else:
                subject = make_name(rng)
            rows.append({"subject": subject, "relation": rid,
                         "relation_group": rel.group, "object": obj})
    return pd.DataFrame(rows).drop_duplicates(["subject", "relation"]).reset_index(drop=True)
