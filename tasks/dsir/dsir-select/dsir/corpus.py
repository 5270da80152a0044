"""A tiny synthetic corpus: a raw pool mixing several domains and a target set drawn from one of them.

Each domain has its own vocabulary of made-up words plus a shared vocabulary of function words; a document is a
sequence of sentences whose words are drawn from the domain's word frequencies with some word pairs favoured, so
that both unigram and bigram statistics differ between domains.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SHARED = ["the", "a", "of", "and", "to", "in", "is", "for", "on", "with", "as", "by", "that", "it"]
DOMAINS = {
    "science": ["cell", "protein", "energy", "model", "data", "theory", "quantum", "field", "gene", "atom",
                "reaction", "measure", "sample", "signal", "neuron"],
    "news": ["minister", "election", "city", "police", "market", "vote", "report", "official", "court", "team",
             "season", "price", "strike", "border", "policy"],
    "code": ["function", "return", "int", "value", "class", "loop", "array", "string", "null", "error",
             "index", "buffer", "thread", "compile", "module"],
    "fiction": ["she", "he", "night", "door", "heart", "whisper", "dark", "smile", "eyes", "castle",
                "dream", "river", "sword", "forest", "ghost"],
}


@dataclass
class Document:
    text: str
    domain: str


def _sentence(rng: np.random.Generator, words: list[str], length: int) -> str:
    vocab = words + SHARED
    p = np.concatenate([np.linspace(2.0, 0.5, len(words)), np.full(len(SHARED), 1.0)])
    p /= p.sum()
    out = []
    for _ in range(length):
        if out and out[-1] in words and rng.random() < 0.4:
            out.append(words[(words.index(out[-1]) + 1) % len(words)])  # favoured word pairs
        else:
            out.append(str(vocab[rng.choice(len(vocab), p=p)]))
    return " ".join(out).capitalize() + "."


def make_document(rng: np.random.Generator, domain: str, min_words: int = 8, max_words: int = 40) -> Document:
    words = DOMAINS[domain]
    n = int(rng.integers(min_words, max_words + 1))
    parts, left = [], n
    while left > 0:
        m = min(left, int(rng.integers(4, 12)))
        parts.append(_sentence(rng, words, m))
        left -= m
    return Document(" ".join(parts), domain)


def make_corpus(seed: int, n_raw: int = 400, n_target: int = 60, target_domain: str = "science",
                raw_mix: dict[str, float] | None = None) -> tuple[list[Document], list[Document]]:
    """(raw, target): raw documents mixed from every domain, target documents from `target_domain` only."""
    rng = np.random.default_rng(seed)
    mix = raw_mix or {d: 1.0 for d in DOMAINS}
    names = list(mix)
    p = np.array([mix[d] for d in names], dtype=np.float64)
    p /= p.sum()
    raw = [make_document(rng, names[rng.choice(len(names), p=p)]) for _ in range(n_raw)]
    target = [make_document(rng, target_domain) for _ in range(n_target)]
    return raw, target


def load_jsonl(path: str | Path, field: str = "text") -> list[str]:
    """Texts of a JSON-lines file, one object per line with the text under `field`."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)[field] for line in f if line.strip()]


def save_jsonl(path: str | Path, docs: list[Document]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"text": d.text, "domain": d.domain}) + "\n")
