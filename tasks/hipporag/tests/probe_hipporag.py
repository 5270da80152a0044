"""Probe for hipporag/1: indexing and retrieval in hipporag/hippo.py. Runs in the sandbox; emits outputs only.
Outputs are compared with the reference's (tests/expected/); check_hipporag.py adds hand values and properties."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from hipporag.config import HippoConfig
from hipporag.encoder import PhraseEncoder
from hipporag.hippo import (build_graph, link_query_entities, node_specificity, personalized_pagerank,
                            rank_passages, retrieve)
from hipporag.kg import KnowledgeGraph
from lmrbench_probe import case

with open(Path(__file__).parent / "fixtures" / "hipporag_cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

F64 = dict(rtol=1e-10, atol=1e-12)
PPR = dict(rtol=1e-7, atol=1e-9)  # any stopping rule at tol 1e-13 lands this close to the fixed point


def graph_of(c) -> tuple[KnowledgeGraph, PhraseEncoder]:
    enc = PhraseEncoder(c["dim"])
    cfg = HippoConfig(synonym_threshold=c["threshold"], synonym_weight=c["synonym_weight"], embed_dim=c["dim"])
    return build_graph([[tuple(t) for t in p] for p in c["triples"]], enc, cfg), enc


# ---------------------------------------------------------------- node specificity (cheap)


@case(params=range(len(CASES["specificity"])), **F64)
def specificity_matches_reference(i):
    return {"case": i, "s": np.asarray(node_specificity(np.asarray(CASES["specificity"][i], dtype=np.int64)),
                                       dtype=np.float64)}


@case
def specificity_rejects_one_dimensional():
    return {"s": node_specificity(np.array([1, 2, 3]))}


# ---------------------------------------------------------------- Personalized PageRank


@case(params=range(len(CASES["ppr"])), **PPR)
def ppr_matches_reference(i):
    c = CASES["ppr"][i]
    a = np.asarray(c["adjacency"], dtype=np.float64)
    adj = a if c["dense"] else sp.csr_matrix(a)
    p = personalized_pagerank(adj, np.asarray(c["reset"], dtype=np.float64), c["damping"], 1e-13, 100000)
    return {"case": i, "p": np.asarray(p, dtype=np.float64)}


@case
def ppr_rejects_empty_reset():
    a = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    return {"p": personalized_pagerank(a, np.zeros(2), 0.5, 1e-10, 100)}


@case(**PPR)
def ppr_unnormalised_reset():
    c = CASES["ppr"][3]
    a = sp.csr_matrix(np.asarray(c["adjacency"], dtype=np.float64))
    r = np.asarray(c["reset"], dtype=np.float64)
    return {"p": np.asarray(personalized_pagerank(a, 7.0 * r, c["damping"], 1e-13, 100000), dtype=np.float64),
            "q": np.asarray(personalized_pagerank(a, r / r.sum(), c["damping"], 1e-13, 100000), dtype=np.float64)}


# ---------------------------------------------------------------- ranking


@case(params=range(len(CASES["rank"])), **F64, outputs={"passages": {"compare": "none"}})
def rank_matches_reference(i):
    c = CASES["rank"][i]
    idx, scores = rank_passages(np.asarray(c["passage_node"], dtype=np.int64), np.asarray(c["probs"]), c["top_k"])
    return {"case": i, "passages": np.asarray(idx).astype(np.int64), "scores": np.asarray(scores, dtype=np.float64)}


# ---------------------------------------------------------------- graph construction


@case(params=range(len(CASES["graph"])), **F64,
      outputs={"nodes*": {"compare": "exact"}, "passage_node": {"compare": "exact"}})
def graph_matches_reference(i):
    g, _ = graph_of(CASES["graph"][i])
    return {"case": i, "nodes": list(g.nodes), "adjacency": g.adjacency().toarray(),
            "passage_node": np.asarray(g.passage_node).astype(np.int64)}


@case(**F64)
def link_matches_reference():
    outs = {}
    for k, r in enumerate(CASES["retrieve"]):
        g, enc = graph_of(CASES["graph"][r["graph"]])
        ids, sims = link_query_entities(r["entities"], g, enc)
        outs[f"ids{k}"] = np.asarray(ids).astype(np.int64)
        outs[f"sims{k}"] = np.asarray(sims, dtype=np.float64)
    return outs


@case
def link_rejects_empty_graph():
    return {"ids": link_query_entities(["x"], KnowledgeGraph(), PhraseEncoder(16))}


# ---------------------------------------------------------------- end to end


@case(params=range(len(CASES["retrieve"])), **PPR,
      outputs={"passages": {"compare": "none"}, "query_nodes": {"compare": "exact"}})
def retrieve_matches_reference(i):
    r = CASES["retrieve"][i]
    c = CASES["graph"][r["graph"]]
    g, enc = graph_of(c)
    cfg = HippoConfig(synonym_threshold=c["threshold"], synonym_weight=c["synonym_weight"], embed_dim=c["dim"],
                      damping=r["damping"], node_specificity=r["node_specificity"], top_k=r["top_k"], ppr_tol=1e-13,
                      ppr_max_iter=100000)
    res = retrieve(r["entities"], g, enc, cfg)
    return {"case": i, "passages": np.asarray(res.passages).astype(np.int64),
            "scores": np.asarray(res.scores, dtype=np.float64), "node_probs": np.asarray(res.node_probs, dtype=np.float64),
            "query_nodes": np.asarray(res.query_nodes).astype(np.int64),
            "all_scores": np.asarray(g.passage_node, dtype=np.float64) @ np.asarray(res.node_probs, dtype=np.float64)}


@case(**PPR, outputs={"passages": {"compare": "none"}})
def toy_corpus_retrieval():
    from hipporag.corpus import make_corpus
    from hipporag.openie import extract_query_entities, extract_triples
    passages, queries = make_corpus(num_people=8, seed=3)
    cfg = HippoConfig(ppr_tol=1e-13, ppr_max_iter=100000)
    enc = PhraseEncoder(cfg.embed_dim)
    g = build_graph([extract_triples(p) for p in passages], enc, cfg)
    res = retrieve(extract_query_entities(queries[2]), g, enc, cfg)
    return {"passages": np.asarray(res.passages).astype(np.int64), "scores": np.asarray(res.scores, dtype=np.float64),
            "node_probs": np.asarray(res.node_probs, dtype=np.float64)}


@case
def specificity_rejects_unused_node():
    return {"s": node_specificity(np.array([[1, 0, 2], [3, 0, 0]]))}


@case(**F64)
def link_no_entities():
    g, enc = graph_of(CASES["graph"][0])
    ids, sims = link_query_entities([], g, enc)
    return {"ids": np.asarray(ids).astype(np.int64).reshape(-1), "sims": np.asarray(sims, dtype=np.float64).reshape(-1)}


@case(**F64, outputs={"nodes*": {"compare": "exact"}})
def graph_two_nodes_synonyms():
    enc = PhraseEncoder(64)
    cfg = HippoConfig(synonym_threshold=0.5, synonym_weight="similarity", embed_dim=64)
    g = build_graph([[("Marie Curie", "also known as", "Marie Curies")]],
                    enc, cfg)
    return {"nodes": list(g.nodes), "adjacency": g.adjacency().toarray(),
            "passage_node": np.asarray(g.passage_node).astype(np.int64)}


@case(**F64)
def link_single_node_graph():
    g = KnowledgeGraph()
    g.add_node("port alder")
    ids, sims = link_query_entities(["Port Alder", "Vellmar"], g, PhraseEncoder(32))
    return {"ids": np.asarray(ids).astype(np.int64), "sims": np.asarray(sims, dtype=np.float64)}
