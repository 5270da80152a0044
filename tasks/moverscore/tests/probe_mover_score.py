"""Probe for moverscore/1: ``ngram_embeddings`` and ``mover_score`` in ``moverscore/metric.py``. Runs in the
sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_mover_score.py add the old score criterion, hand-checked values and the metric's properties."""

from __future__ import annotations

import functools
from pathlib import Path

import torch

from lmrbench_probe import case
from moverscore.data import REFERENCES, SYSTEMS
from moverscore.encoder import Encoder
from moverscore.metric import MoverScorer, mover_score, ngram_embeddings
from moverscore.tokenizer import Tokenizer

FIXTURES = Path(__file__).parent / "fixtures"
NGRAM_CASES = torch.load(FIXTURES / "ngram_cases.pt", weights_only=True)
SCORE_CASES = torch.load(FIXTURES / "score_cases.pt", weights_only=True)
END_TO_END = torch.load(FIXTURES / "end_to_end.pt", weights_only=True)

TOL = dict(rtol=1e-7, atol=1e-8)  # the transport LP is solved to ~1e-10
NGRAM_TOL = dict(rtol=1e-12, atol=1e-12)


def t64(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def tensor(x):
    """The candidate's value if it is a tensor, else a NaN scalar that fails every comparison (the harness
    cannot compare None or another object with the reference's array)."""
    return x if isinstance(x, torch.Tensor) else torch.tensor(float("nan"))


def ngrams(emb, weights, n) -> dict:
    vectors, mass = ngram_embeddings(emb, weights, n)
    return {"vectors": tensor(vectors), "mass": tensor(mass)}


def scores(**named) -> dict:
    """Each score as returned (a non-tensor becomes a NaN scalar, which fails)."""
    return {key: tensor(value) for key, value in named.items()}


def score(*args) -> torch.Tensor:
    return mover_score(*args)


def run_case(c: dict, **overrides) -> torch.Tensor:
    args = {k: c[k] for k in ("ref_emb", "ref_idf", "hyp_emb", "hyp_idf", "n_gram")}
    args.update(overrides)
    return mover_score(**args)


# --------------------------------------------------------------------------- n-gram embeddings


@case(params=range(len(NGRAM_CASES)), **NGRAM_TOL)
def ngram_embeddings_match_reference(index):
    c = NGRAM_CASES[index]
    return ngrams(c["emb"], c["weights"], c["n"])


@case(**NGRAM_TOL)
def ngram_embeddings_by_hand():
    emb = t64([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    idf = t64([1.0, 2.0, 3.0])
    return {f"n{n}": ngrams(emb, idf, n) for n in (1, 2, 3, 5)}


# --------------------------------------------------------------------------- MoverScore: differential


@case(params=range(len(SCORE_CASES)), **TOL)
def mover_score_matches_reference(index):
    return scores(score=run_case(SCORE_CASES[index]))


@functools.cache
def toy_setup():
    tokenizer = Tokenizer.build(REFERENCES + [s for outs in SYSTEMS.values() for s in outs])
    return tokenizer, Encoder(len(tokenizer), seed=0)


@case(params=range(len(END_TO_END)), rtol=1e-5, atol=1e-5)
def scorer_on_toy_systems_matches_reference(index):
    c = END_TO_END[index]
    tokenizer, encoder = toy_setup()
    outputs = SYSTEMS[c["system"]]
    scorer = MoverScorer(tokenizer, encoder, REFERENCES, outputs, n_gram=c["n_gram"])
    return {"scores": tensor(scorer.score(outputs, REFERENCES))}


# --------------------------------------------------------------------------- MoverScore: by hand (check file)


@case(**TOL)
def unigram_by_hand():
    ref = t64([[1.0, 0.0], [0.0, 1.0]])
    hyp = t64([[2.0, 0.0]])
    return scores(idf_1_1=score(ref, t64([1.0, 1.0]), hyp, t64([5.0]), 1),
                  idf_3_1=score(ref, t64([3.0, 1.0]), hyp, t64([0.5]), 1))


@case(**TOL)
def transport_plan_by_hand():
    ref = t64([[1.0, 0.0], [0.0, 1.0]])
    hyp = t64([[3.0, 0.0], [-1.0, 0.0]])
    return scores(score=score(ref, t64([2.0, 2.0]), hyp, t64([1.0, 3.0]), 1))


@case(**TOL)
def bigram_by_hand():
    ref = t64([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    hyp = t64([[1.0, 0.0], [0.0, 1.0]])
    return scores(bigram=score(ref, t64([1.0, 1.0, 1.0]), hyp, t64([1.0, 3.0]), 2),
                  unigram=score(ref, t64([1.0, 1.0, 1.0]), hyp, t64([1.0, 3.0]), 1))


@case(**TOL)
def opposite_single_words_score_minus_one():
    return scores(score=score(t64([[0.0, 3.0]]), t64([1.0]), t64([[0.0, -0.5]]), t64([2.0]), 1))


# --------------------------------------------------------------------------- properties (check file)


@case(params=[1, 2, 3], **TOL)
def identical_sentences_score_one(n_gram):
    c = SCORE_CASES[5]
    emb, idf = c["hyp_emb"], c["hyp_idf"]
    return scores(score=score(emb, idf, emb.clone(), idf.clone(), n_gram))


@case(params=[0, 6, 12, 18, 24, 31], **TOL)
def symmetric_in_reference_and_hypothesis(index):
    c = SCORE_CASES[index]
    return scores(score=run_case(c), swapped=run_case(c, ref_emb=c["hyp_emb"], ref_idf=c["hyp_idf"],
                                                     hyp_emb=c["ref_emb"], hyp_idf=c["ref_idf"]))


@case(params=[1, 7, 13, 19, 26], **TOL)
def invariant_to_idf_scale(index):
    c = SCORE_CASES[index]
    return scores(score=run_case(c), scaled_idf=run_case(c, ref_idf=c["ref_idf"] * 4.0, hyp_idf=c["hyp_idf"] * 0.3))


@case(params=[0, 2, 4, 16, 33], **TOL)
def unigram_score_ignores_word_order_and_length(index):
    c = SCORE_CASES[index]
    gen = torch.Generator().manual_seed(index)
    perm = torch.randperm(c["ref_emb"].shape[0], generator=gen)
    scale = 10.0 ** torch.empty(c["hyp_emb"].shape[0], 1, dtype=torch.float64).uniform_(-2, 2, generator=gen)
    return {"n_gram": c["n_gram"],
            **scores(score=run_case(c), reordered=run_case(c, ref_emb=c["ref_emb"][perm], ref_idf=c["ref_idf"][perm],
                                                           hyp_emb=c["hyp_emb"] * scale))}


@case(**TOL)
def bigram_score_depends_on_word_order():
    gen = torch.Generator().manual_seed(3)
    ref = torch.randn(4, 3, generator=gen, dtype=torch.float64)
    idf = torch.rand(4, generator=gen, dtype=torch.float64) + 0.5
    hyp = ref[[2, 0, 3, 1]]
    hyp_idf = idf[[2, 0, 3, 1]]
    return scores(unigram=score(ref, idf, hyp, hyp_idf, 1), bigram=score(ref, idf, hyp, hyp_idf, 2))
