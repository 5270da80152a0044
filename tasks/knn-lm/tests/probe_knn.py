"""Probe for knn-lm/1: datastore, search, kNN distribution, interpolation and kNN-LM log-probabilities of
knnlm/knn.py. Runs in the sandbox; emits outputs only, never compares.

Everything is float64 (the model included). Distances and probabilities at rtol 1e-9, atol 1e-10 (NOTES.md: an
expanded |a|^2 + |b|^2 - 2ab distance differs from the direct one by ~1e-15); indices and values exactly."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from knnlm.config import KnnConfig
from knnlm.datastore import Datastore
from knnlm.knn import build_datastore, interpolate, knn_distribution, knn_search, sequence_logprobs
from knnlm.model import TinyLM
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
TOL = dict(rtol=1e-9, atol=1e-10)


def t64(x) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


@case(**TOL)
def search_hand():
    store = Datastore(t64([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 4.0], [1.0, 0.0]]),
                      torch.tensor([0, 1, 2, 1, 3]), 4)
    d, i = knn_search(store, t64([[0.0, 0.0], [1.0, 1.0]]), 3)
    d_all, i_all = knn_search(store, t64([[2.0, 2.0]]), 10)
    return {"d": d, "i": i, "d_all": d_all, "i_all": i_all}


@case(**TOL)
def distribution_hand():
    p = knn_distribution(t64([[0.0, 1.0, 1.0]]), torch.tensor([[2, 0, 2]]), 3)
    p_t = knn_distribution(t64([[0.0, 1.0, 1.0]]), torch.tensor([[2, 0, 2]]), 3, temperature=0.5)
    return {"p": p, "p_t": p_t}


@case(params=range(len(CASES["neighbours"])), **TOL)
def distribution_random(i):
    c = CASES["neighbours"][i]
    return {"case": i, "p": knn_distribution(t64(c["distances"]), torch.tensor(c["values"]), c["vocab"],
                                             c["temperature"])}


@case(**TOL)
def interpolate_hand():
    p_lm = t64([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    p_knn = t64([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    return {"quarter": interpolate(p_lm, p_knn, 0.25), "zero": interpolate(p_lm, p_knn, 0.0),
            "one": interpolate(p_lm, p_knn, 1.0)}


@case(params=range(len(CASES["stores"])), **TOL)
def knnlm_corpora(i):
    c = CASES["stores"][i]
    model = TinyLM()
    store = build_datastore(model, c["train"])
    cfg = KnnConfig(**c["cfg"])
    queries = torch.cat([model.context_vectors(s) for s in c["test"]])
    d, idx = knn_search(store, queries, cfg.k)
    return {"case": i, "keys": store.keys, "values": store.values, "vocab": store.vocab_size, "queries": queries,
            "search_d": d, "search_i": idx,
            "logprobs": [sequence_logprobs(model, store, s, cfg) for s in c["test"]],
            "lm_only": [sequence_logprobs(model, store, s, KnnConfig(k=cfg.k, lam=0.0)) for s in c["test"]]}


@case(**TOL)
def datastore_short_sequences():
    model = TinyLM()
    store = build_datastore(model, [[5], [1, 2], [], [3, 4, 5]])
    empty = build_datastore(model, [[7]])
    return {"keys": store.keys, "values": store.values, "empty_keys": empty.keys, "empty_values": empty.values}
