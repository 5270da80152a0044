"""Writes tests/fixtures/hipporag_cases.json: inputs and options only (never an output of the reference).

Run as `python make_fixtures.py OUT_DIR` from a copy of the repository with the reference applied. The reference
is used only to reject inputs that would sit on an open convention (a similarity on the synonymy threshold, two
query entities linked to the same node, a tie between two nodes for a query entity)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from hipporag.config import HippoConfig
from hipporag.encoder import PhraseEncoder
from hipporag.hippo import build_graph
from hipporag.text import normalize_phrase

SYLL = ["ka", "lo", "mir", "ta", "ven", "os", "ril", "da", "nu", "pe", "sha", "gor", "el", "bi", "zan", "qu"]
RELS = ["born in", "wrote", "located in", "member of", "married", "founded", "plays for", "studied at"]


def name(rng) -> str:
    words = []
    for _ in range(int(rng.integers(1, 3))):
        w = "".join(SYLL[int(k)] for k in rng.integers(0, len(SYLL), size=int(rng.integers(2, 4))))
        words.append(w.capitalize())
    return " ".join(words)


def variant(rng, phrase: str) -> str:
    """A surface variant: another case, punctuation, a plural or a possessive."""
    kind = int(rng.integers(0, 5))
    if kind == 0:
        return phrase.upper()
    if kind == 1:
        return phrase + "."
    if kind == 2:
        return phrase + "s"
    if kind == 3:
        return phrase + "'s"
    return "  " + phrase.lower() + " "


def corpus(rng, n_passages: int, n_entities: int, n_syn: int):
    ents = []
    while len(ents) < n_entities:
        e = name(rng)
        if normalize_phrase(e) not in {normalize_phrase(x) for x in ents}:
            ents.append(e)
    # near-synonyms: a base phrase with a suffix that keeps most character trigrams
    for k in range(n_syn):
        base = ents[k]
        ents.append(base + " " + ["Jr", "Co", "Inc", "II"][k % 4])
    out, used = [], set()
    for _ in range(n_passages):
        triples = []
        for _ in range(int(rng.integers(1, 4))):
            for _ in range(50):
                a, b = (int(x) for x in rng.choice(len(ents), size=2, replace=False))
                key = (min(a, b), max(a, b))
                if key not in used:
                    break
            if key in used:
                continue
            used.add(key)
            s = ents[a] if rng.random() < 0.6 else variant(rng, ents[a])
            o = ents[b] if rng.random() < 0.6 else variant(rng, ents[b])
            if normalize_phrase(s) == normalize_phrase(o):
                continue
            triples.append([s, RELS[int(rng.integers(len(RELS)))], o])
        if not triples:
            triples.append([ents[0] + " Prime", "is", ents[1] + " Prime"])
        out.append(triples)
    return out


def safe_threshold(sims: np.ndarray, want: float) -> float:
    vals = np.sort(np.unique(np.round(sims[np.triu_indices(sims.shape[0], 1)], 12)))
    t = want
    while np.any(np.abs(vals - t) < 1e-6):
        t += 0.0037
    return float(round(t, 6))


def graph_cases(rng, count: int):
    cases = []
    for c in range(count):
        triples = corpus(rng, int(rng.integers(2, 7)), int(rng.integers(5, 10)), int(rng.integers(1, 3)))
        dim = [64, 128, 256][c % 3]
        enc = PhraseEncoder(dim)
        cfg0 = HippoConfig(embed_dim=dim)
        g0 = build_graph(triples, enc, cfg0)
        sims = enc.similarity(g0.nodes, g0.nodes)
        thr = safe_threshold(sims, [0.8, 0.6, 0.45, 0.9][c % 4])
        cases.append({"triples": triples, "dim": dim, "threshold": thr,
                      "synonym_weight": ["similarity", "unit"][c % 2]})
    return cases


def main(out_dir: str) -> None:
    rng = np.random.default_rng(20240523)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cases: dict = {}
    cases["graph"] = graph_cases(rng, 8)

    spec = []
    for shape in [(1, 1), (3, 4), (5, 7), (6, 12)]:
        m = rng.integers(0, 4, size=shape) * (rng.random(shape) < 0.5)
        for j in range(shape[1]):
            if not m[:, j].any():
                m[int(rng.integers(shape[0])), j] = int(rng.integers(1, 4))
        spec.append(m.tolist())
    cases["specificity"] = spec

    ppr = []
    for k, (n, d) in enumerate([(2, 0.5), (4, 0.5), (6, 0.15), (9, 0.85), (12, 0.5), (15, 0.3), (20, 0.7)]):
        w = rng.random((n, n)) * (rng.random((n, n)) < 0.4)
        w = np.triu(w, 1)
        for i in range(n - 1):                     # a path keeps every node attached
            if w[i, i + 1] == 0:
                w[i, i + 1] = float(rng.random()) + 0.1
        w = np.round((w + w.T) * 1024) / 1024
        reset = np.round(rng.random(n) * (rng.random(n) < 0.4) * 1024) / 1024
        if reset.sum() == 0:
            reset[int(rng.integers(n))] = 1.0
        ppr.append({"adjacency": w.tolist(), "reset": reset.tolist(), "damping": d, "dense": k % 2 == 1})
    cases["ppr"] = ppr

    rank = []
    for shape, k in [((4, 3), 2), ((6, 5), 6), ((8, 10), 3), ((10, 6), 10)]:
        m = rng.integers(0, 3, size=shape)
        p = rng.random(shape[1])
        p = p / p.sum()
        if shape[0] >= 6:
            m[1] = m[0]                            # a tie between passages 0 and 1
        rank.append({"passage_node": m.tolist(), "probs": p.tolist(), "top_k": k})
    cases["rank"] = rank

    # retrieval: graphs of the graph cases, queries of distinct linked nodes
    retr = []
    for c, g in enumerate(cases["graph"][:6]):
        enc = PhraseEncoder(g["dim"])
        cfg = HippoConfig(synonym_threshold=g["threshold"], synonym_weight=g["synonym_weight"], embed_dim=g["dim"])
        graph = build_graph(g["triples"], enc, cfg)
        if (graph.adjacency().sum(axis=0) == 0).any():
            continue
        for q in range(2):
            n_ent = int(rng.integers(1, min(3, graph.num_nodes) + 1))
            picks = rng.choice(graph.num_nodes, size=n_ent, replace=False)
            ents = [variant(rng, graph.nodes[int(i)]) if rng.random() < 0.5 else graph.nodes[int(i)] for i in picks]
            sims = enc.similarity(ents, graph.nodes)
            top2 = np.sort(sims, axis=1)[:, -2:] if graph.num_nodes > 1 else None
            ids = np.argmax(sims, axis=1)
            if len(set(ids.tolist())) < len(ids) or (top2 is not None and np.any(top2[:, 1] - top2[:, 0] < 1e-9)):
                continue
            retr.append({"graph": c, "entities": ents, "damping": [0.5, 0.85, 0.3][q + c % 2],
                         "node_specificity": (c + q) % 3 != 2, "top_k": [3, 5, 100][(c + q) % 3]})
    cases["retrieve"] = retr
    with open(out / "hipporag_cases.json", "w", encoding="utf-8") as f:
        json.dump(cases, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
