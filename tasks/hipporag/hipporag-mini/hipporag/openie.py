"""The stand-in for the LLM: deterministic "extraction" of named entities and triples.

A passage of the toy corpus carries its annotations; `extract_triples` plays the part of the OpenIE prompt (named
entities first, then triples conditioned on them) and `extract_query_entities` that of the query NER prompt."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Passage:
    """One passage: its text, and the annotations the stub "LLM" reads back."""

    title: str
    text: str
    entities: list[str] = field(default_factory=list)
    triples: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass
class Query:
    """A question, its named entities, and (for evaluation) the indices of its supporting passages."""

    text: str
    entities: list[str] = field(default_factory=list)
    supporting: list[int] = field(default_factory=list)


def extract_named_entities(passage: Passage) -> list[str]:
    """The passage's named entities (the first OpenIE step)."""
    return list(passage.entities)


def extract_triples(passage: Passage) -> list[tuple[str, str, str]]:
    """The passage's (subject, relation, object) triples, raw (not normalised)."""
    entities = extract_named_entities(passage)  # the real prompt conditions on them; the stub only reads them
    del entities
    return [tuple(t) for t in passage.triples]


def extract_query_entities(query: Query) -> list[str]:
    """The query's named entities, raw (not normalised)."""
    return list(query.entities)
