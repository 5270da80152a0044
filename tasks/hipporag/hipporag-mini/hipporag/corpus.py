"""A toy multi-hop corpus: people, places and works linked by triples, with two-hop questions."""
from __future__ import annotations

import numpy as np

from hipporag.openie import Passage, Query

_FIRST = ["Alma", "Boris", "Celia", "Dmitri", "Edda", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Lars"]
_LAST = ["Varga", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Ruiz", "Novak", "Haddad", "Brennan", "Sato"]
_PLACES = ["Port Alder", "Vellmar", "Oskarshamn Bay", "Tirsa", "New Kelby", "Amberfield", "Droma", "Quillon"]
_WORKS = ["The Glass Orchard", "Northern Ledger", "Salt and Iron", "A Quiet Engine", "The Lantern Year",
          "Cold Harbour Suite", "Rivers of Tin", "The Ninth Atlas"]


def make_corpus(num_people: int = 8, seed: int = 0) -> tuple[list[Passage], list[Query]]:
    """Passages about people (birthplace, a work) and places (a landmark), and two-hop queries whose answer needs
    the passage about a work's author and the passage about that author's birthplace."""
    rng = np.random.default_rng(seed)
    people = []
    for k in range(num_people):
        people.append(f"{_FIRST[k % len(_FIRST)]} {_LAST[(3 * k + 1) % len(_LAST)]}")
    passages: list[Passage] = []
    queries: list[Query] = []
    place_passage: dict[str, int] = {}
    for place in _PLACES:
        landmark = f"{place} Museum"
        place_passage[place] = len(passages)
        passages.append(Passage(title=place, text=f"{place} is home to the {landmark}.", entities=[place, landmark],
                                triples=[(place, "home to", landmark)]))
    for k, person in enumerate(people):
        place = _PLACES[int(rng.integers(len(_PLACES)))]
        work = _WORKS[k % len(_WORKS)]
        idx = len(passages)
        passages.append(Passage(
            title=person, text=f"{person} was born in {place} and wrote {work}.", entities=[person, place, work],
            triples=[(person, "born in", place), (person, "wrote", work)]))
        queries.append(Query(text=f"Which museum is in the birthplace of the author of {work}?",
                             entities=[work], supporting=[idx, place_passage[place]]))
    return passages, queries
