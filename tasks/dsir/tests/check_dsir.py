"""Trusted checks for dsir/1 (never enter the sandbox): hand-checked values and the paper's properties, on the
outputs probe_dsir.py emitted, recomputed here from paper.md's equations with an independent implementation.
The default comparison with the reference's outputs has already passed. Inputs are read from the fixtures and
case parameters from `ref`, never from `out`."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from lmrbench.checks import check, close, equal, expect

with open(Path(__file__).parent / "fixtures" / "dsir_cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

F64 = dict(rtol=1e-10, atol=1e-12)
W64 = dict(rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------- an independent implementation (paper.md Sec. 4)


def words(text: str) -> list[str]:
    # the repository's tokenize: lower-cased runs of [a-z0-9]
    return re.findall(r"[a-z0-9]+", text.lower())


def bucket(ngram: tuple[str, ...], m: int) -> int:
    # the repository's hash_ngram: 64-bit FNV-1a of the space-joined words, modulo m
    h = 0xCBF29CE484222325
    for b in " ".join(ngram).encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) % (1 << 64)
    return h % m


def features(texts: list[str], m: int, orders) -> np.ndarray:
    out = np.zeros((len(texts), m), dtype=np.int64)
    for r, t in enumerate(texts):
        w = words(t)
        for n in orders:
            for s in range(len(w) - n + 1):
                out[r, bucket(tuple(w[s:s + n]), m)] += 1
    return out


def fit(counts: np.ndarray, s: float) -> np.ndarray:
    # Eq. (5) with the configuration's pseudocount on every bucket
    c = np.asarray(counts, dtype=np.float64).reshape(-1, np.shape(counts)[-1]).sum(axis=0) + s
    return c / c.sum()


def gumbel(seed: int, n: int) -> np.ndarray:
    # the repository's gumbel_noise on a fresh default_rng(seed)
    u = np.clip(np.random.default_rng(seed).random(n), np.finfo(np.float64).tiny, None)
    return -np.log(-np.log(u))


def kl(p, q) -> float:
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    mask = p > 0
    return float(sum(pi * math.log(pi / qi) for pi, qi in zip(p[mask], q[mask])))


# ---------------------------------------------------------------- featurize


@check("featurize_matches_reference[*]")
def featurize_is_hashed_ngram_counts(out, ref):
    c = CASES["featurize"][ref["case"]]
    want = features(c["texts"], c["num_buckets"], c["ngram_orders"])
    equal(out["counts"].tolist(), want.tolist(), what="hashed n-gram counts")
    equal(out["integer"], True, what="integer counts")
    # every document contributes max(0, L - n + 1) n-grams of each order
    lengths = [len(words(t)) for t in c["texts"]]
    equal(out["counts"].sum(axis=1).tolist(),
          [sum(max(0, L - n + 1) for n in c["ngram_orders"]) for L in lengths], what="n-grams per document")


@check("featurize_matches_reference[1]")
def featurize_hand_values(out, ref):
    # "the cat the": unigrams the x2, cat x1; bigrams "the cat", "cat the"; the empty text has no features;
    # "Hello, WORLD! hello world...": words hello world hello world -> hello x2, world x2, "hello world" x2,
    # "world hello" x1
    m = 10_000
    row = np.zeros(m, dtype=np.int64)
    for g, k in [(("the",), 2), (("cat",), 1), (("the", "cat"), 1), (("cat", "the"), 1)]:
        row[bucket(g, m)] += k
    equal(out["counts"][0].tolist(), row.tolist(), what="features of 'the cat the'")
    equal(int(out["counts"][1].sum()), 0, what="features of the empty text")
    equal(int(out["counts"][2].sum()), 1, what="a single word: one unigram, no bigram")
    last = np.zeros(m, dtype=np.int64)
    for g, k in [(("hello",), 2), (("world",), 2), (("hello", "world"), 2), (("world", "hello"), 1)]:
        last[bucket(g, m)] += k
    equal(out["counts"][3].tolist(), last.tolist(), what="case and punctuation of the tokenizer")


@check("featurize_empty_list")
def featurize_empty(out, ref):
    equal(out["shape"].tolist(), [0, 5], what="no texts: a (0, m) array")


# ---------------------------------------------------------------- fit


@check("fit_matches_reference[*]")
def fit_is_eq5(out, ref):
    c = CASES["fit"][ref["case"]]
    want = fit(np.asarray(c["counts"], dtype=np.int64).reshape(-1, c["m"]), c["smoothing"])
    close(out["dist"], want, **F64, what="(total count of each bucket + pseudocount) / normaliser")
    close(float(np.sum(out["dist"])), 1.0, rtol=1e-12, what="a distribution")
    equal(out["counts_after"].tolist(), np.asarray(c["counts"]).reshape(-1, c["m"]).tolist(),
          what="input counts left unchanged")


# ---------------------------------------------------------------- importance weights


@check("log_weights_match_reference[*]")
def log_weights_are_eq6(out, ref):
    c = CASES["weights"][ref["case"]]
    cnt = np.asarray(c["counts"], dtype=np.float64)
    want = np.array([sum(z * math.log(p / q) for z, p, q in zip(row, c["target"], c["raw"])) for row in cnt])
    close(out["log_weights"], want, **W64, what="sum_j z_j log(p_j / q_j)")


@check("log_weights_hand_values")
def log_weights_hand(out, ref):
    # row 0: 2 log(0.5 / 0.25) + 0 + 1 log(0.25 / 0.25) = 2 ln 2; row 1: no features, 0;
    # row 2: 3 log(0.25 / 0.5) = -3 ln 2
    close(out["log_weights"], [1.3862943611198906, 0.0, -2.0794415416798357], rtol=1e-12, atol=1e-12,
          what="log importance weights by hand (natural log)")


# ---------------------------------------------------------------- resampling


@check("resample_matches_reference[*]")
def resample_is_gumbel_top_k(out, ref):
    c = CASES["resample"][ref["case"]]
    lw = np.asarray(c["log_weights"])
    keys = lw + gumbel(c["seed"], len(lw)) if c["resample"] else lw
    want = np.sort(np.argsort(-keys)[: c["k"]])
    equal(out["selected"].tolist(), want.tolist(), what="the k largest perturbed log-weights")
    equal(len(set(out["returned"].tolist())), len(out["returned"]), what="distinct indices (without replacement)")


@check("resample_frequencies")
def resample_frequencies(out, ref):
    # Gumbel top-1 draws example i with probability w_i / sum(w): 0.1, 0.2, 0.3, 0.4 (4000 draws: sd <= 0.008)
    close(out["freq"], [0.1, 0.2, 0.3, 0.4], rtol=0, atol=0.035, what="P(i) proportional to w_i")
    # top-2 = two draws without replacement: P({i, j}) = w_i w_j / S (1 / (S - w_i) + 1 / (S - w_j)), S = 10
    w, s = [1.0, 2.0, 3.0, 4.0], 10.0
    want = [w[a] * w[b] / s * (1 / (s - w[a]) + 1 / (s - w[b])) for a in range(4) for b in range(a + 1, 4)]
    close(out["pair_freq"], want, rtol=0, atol=0.035, what="pairs drawn without replacement (3000 draws)")


@check("resample_top_k_is_deterministic")
def top_k(out, ref):
    # log-weights 0.3, -1.0, 2.5, 0.9, 2.4, -0.2: the three largest are at 2, 4, 3
    equal(out["selected"].tolist(), [2, 3, 4], what="top-k without noise")
    equal(out["other_seed"].tolist(), [2, 3, 4], what="top-k does not depend on the generator")


# ---------------------------------------------------------------- KL


@check("kl_divergence_matches_reference[*]")
def kl_is_kl(out, ref):
    c = CASES["kl"][ref["case"]]
    want = kl(c["p"], c["q"])
    close(out["kl"], want, **F64, what="sum_j p_j log(p_j / q_j)")


@check("kl_divergence_matches_reference[3]")
def kl_hand(out, ref):
    # p = (0, 0.3, 0, 0.7), q = (0.1, 0.2, 0.3, 0.4): 0.3 ln 1.5 + 0.7 ln 1.75 = 0.12163953243244932 +
    # 0.39173150169813426 = 0.5133710341305836; buckets with p = 0 contribute nothing
    close(out["kl"], 0.3 * math.log(1.5) + 0.7 * math.log(1.75), rtol=1e-12, what="KL by hand")


@check("kl_reduction_matches_reference[*]")
def kl_reduction_is_definition(out, ref):
    c = CASES["kl_reduction"][ref["case"]]
    raw = np.asarray(c["raw"], dtype=np.int64)
    sel = raw[np.asarray(c["selected"], dtype=np.int64)]
    q, r = fit(raw, c["smoothing"]), fit(sel, c["smoothing"])
    ps = [fit(np.asarray(t, dtype=np.int64).reshape(-1, raw.shape[1]), c["smoothing"]) for t in c["targets"]]
    want = sum(kl(p, q) - kl(p, r) for p in ps) / len(ps)
    close(out["reduction"], want, **W64, what="mean over targets of KL(p, q_raw) - KL(p, p_selected)")
    close(out["raw_itself"], 0.0, rtol=0, atol=1e-12, what="selecting the whole raw set reduces nothing")


# ---------------------------------------------------------------- end to end


@check("dsir_select_matches_reference[*]")
def dsir_select_is_algorithm(out, ref):
    c = CASES["end_to_end"][ref["case"]]
    k = c["config"]
    raw = features(c["raw"], k["num_buckets"], k["ngram_orders"])
    tgt = features(c["target"], k["num_buckets"], k["ngram_orders"])
    p, q = fit(tgt, k["smoothing"]), fit(raw, k["smoothing"])
    lw = raw.astype(np.float64) @ (np.log(p) - np.log(q))
    keys = lw + gumbel(k["seed"], len(lw)) if k["resample"] else lw
    want = np.sort(np.argsort(-keys)[: c["k"]])
    close(out["target_dist"], p, **F64, what="target feature distribution")
    close(out["raw_dist"], q, **F64, what="raw feature distribution")
    close(out["log_weights"], lw, **W64, what="log importance weights of the raw examples")
    equal(out["selected"].tolist(), want.tolist(), what="Gumbel top-k on the log-weights")
    share = np.mean([d == c["domain"] for d in c["raw_domains"]])
    expect(out["target_fraction"] > share, f"selected share of the target domain {out['target_fraction']:.2f} not "
           f"above its share of the raw pool {share:.2f}")


@check("select_script_runs")
def select_script(out, ref):
    expect(out["dsir_kl_reduction"] > out["random_kl_reduction"],
           f"DSIR's KL reduction {out['dsir_kl_reduction']:.4f} not above random's {out['random_kl_reduction']:.4f}")
    expect(out["dsir_code_fraction"] >= 0.6, f"only {out['dsir_code_fraction']:.2f} of the selection from the target domain")
    expect(out["random_code_fraction"] < 0.5, "random selection should mirror the pool")
