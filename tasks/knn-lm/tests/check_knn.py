"""Trusted checks for knn-lm/1 (never enter the sandbox): search recomputed by brute force in numpy (a stable sort
of squared distances), the kNN distribution of Eq. (2) by a loop over neighbours, Eq. (3) by hand, and the
datastore's values from the corpora. Inputs are read from the fixtures and from `ref`, never from `out`."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from lmrbench.checks import check, close, equal, expect

with open(Path(__file__).parent / "fixtures" / "cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

TOL = dict(rtol=1e-9, atol=1e-10)


def brute_force(keys: np.ndarray, queries: np.ndarray, k: int):
    d = ((queries[:, None, :] - keys[None, :, :]) ** 2).sum(axis=-1)
    order = np.argsort(d, axis=1, kind="stable")[:, : min(k, len(keys))]
    return np.take_along_axis(d, order, axis=1), order


def knn_p(distances, values, vocab: int, temperature: float) -> np.ndarray:
    # Eq. (2): p(y) proportional to the sum over neighbours with value y of exp(-d / T)
    out = np.zeros((len(distances), vocab))
    for r, (ds, vs) in enumerate(zip(distances, values)):
        w = [math.exp(-(x - min(ds)) / temperature) for x in ds]
        for weight, v in zip(w, vs):
            out[r, v] += weight / sum(w)
    return out


@check("search_hand")
def search_values(out, ref):
    # query (0, 0): squared distances to the five keys 0, 1, 4, 25, 1 -> entries 0, 1, 4 (tie 1/4: lower first)
    close(out["d"][0], [0.0, 1.0, 1.0], **TOL, what="distances of the first query")
    # query (1, 1): 2, 1, 2, 13, 1 -> entries 1, 4, then 0 (tied with 2 at distance 2: lower index)
    close(out["d"][1], [1.0, 1.0, 2.0], **TOL, what="distances of the second query")
    equal(np.asarray(out["i"]).tolist(), [[0, 1, 4], [1, 4, 0]], what="neighbour indices, ties by lower index")
    # k larger than the datastore: all five, (2, 2): 8, 5, 4, 5, 5 -> 2, 1, 3, 4, 0
    equal(np.asarray(out["i_all"]).tolist(), [[2, 1, 3, 4, 0]], what="every entry when k exceeds the size")
    close(out["d_all"], [[4.0, 5.0, 5.0, 5.0, 8.0]], **TOL, what="their distances")


@check("distribution_hand")
def distribution_values(out, ref):
    # neighbours (d, v) = (0, 2), (1, 0), (1, 2): weights 1, 1/e, 1/e over 1 + 2/e
    z = 1 + 2 / math.e
    close(out["p"], [[(1 / math.e) / z, 0.0, (1 + 1 / math.e) / z]], **TOL, what="Eq. (2)")
    z2 = 1 + 2 * math.exp(-2)
    close(out["p_t"], [[math.exp(-2) / z2, 0.0, (1 + math.exp(-2)) / z2]], **TOL, what="temperature 0.5")


@check("distribution_random[*]")
def distribution_loop(out, ref):
    c = CASES["neighbours"][ref["case"]]
    close(out["p"], knn_p(c["distances"], c["values"], c["vocab"], c["temperature"]), **TOL, what="Eq. (2)")


@check("interpolate_hand")
def interpolation(out, ref):
    # Eq. (3): .25 p_knn + .75 p_lm
    close(out["quarter"], [[0.375, 0.375, 0.25], [0.4, 0.225, 0.375]], **TOL, what="lambda = .25")
    close(out["zero"], [[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]], **TOL, what="lambda = 0: the LM")
    close(out["one"], [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], **TOL, what="lambda = 1: the kNN distribution")


@check("knnlm_corpora[*]")
def corpora(out, ref):
    c = CASES["stores"][ref["case"]]
    want_values = [t for seq in c["train"] for t in seq[1:]]
    equal(np.asarray(out["values"]).tolist(), want_values, what="the value of each entry is the next token")
    equal(list(np.asarray(out["keys"]).shape), [len(want_values), 16], what="one key per entry")
    d, i = brute_force(np.asarray(out["keys"]), np.asarray(out["queries"]), c["cfg"]["k"])
    close(out["search_d"], d, **TOL, what="squared distances of the k nearest")
    equal(np.asarray(out["search_i"]).tolist(), i.tolist(), what="the k nearest entries")
    lam = c["cfg"]["lam"]
    for s in range(len(c["test"])):
        lp = np.asarray(out[f"logprobs.{s}"])
        lm = np.asarray(out[f"lm_only.{s}"])
        equal(lp.shape, (len(c["test"][s]) - 1,), what="one log-probability per predicted token")
        if lam == 0.0:
            close(lp, lm, **TOL, what="lambda = 0 is the language model")
        expect(bool(np.all(lp <= 1e-12)), "log-probabilities are at most 0")
        # Eq. (3) is a mixture: p >= (1 - lambda) p_lm
        expect(bool(np.all(lp >= np.log(1 - lam) + lm - 1e-9)) if lam < 1 else True,
               "the kNN-LM never falls below (1 - lambda) times the LM's probability")


@check("datastore_short_sequences")
def short(out, ref):
    # [5] and [] give nothing; [1, 2] gives one entry (value 2); [3, 4, 5] two (4, 5)
    equal(np.asarray(out["values"]).tolist(), [2, 4, 5], what="entries of the sequences with a successor")
    equal(list(np.asarray(out["empty_keys"]).shape), [0, 16], what="an empty datastore keeps the key size")
