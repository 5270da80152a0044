"""Hidden tests for moverscore/1: ``ngram_embeddings`` and ``mover_score`` in ``moverscore/metric.py``."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import pytest
import torch

from moverscore.data import REFERENCES, SYSTEMS
from moverscore.encoder import Encoder
from moverscore.metric import MoverScorer, mover_score, ngram_embeddings
from moverscore.tokenizer import Tokenizer

FIXTURES = Path(__file__).parent / "fixtures"
NGRAM_CASES = torch.load(FIXTURES / "ngram_cases.pt", weights_only=True)
SCORE_CASES = torch.load(FIXTURES / "score_cases.pt", weights_only=True)
END_TO_END = torch.load(FIXTURES / "end_to_end.pt", weights_only=True)

TOL = dict(rtol=1e-7, atol=1e-8)  # the transport LP is solved to ~1e-10


def t64(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def check_score(got, want: float, **tol) -> None:
    assert isinstance(got, torch.Tensor) and got.dim() == 0, "mover_score must return a 0-d tensor"
    assert got.dtype == torch.float64
    assert math.isclose(got.item(), float(want), rel_tol=tol.get("rtol", TOL["rtol"]), abs_tol=tol.get("atol", TOL["atol"])), (
        f"got {got.item()!r}, want {float(want)!r}"
    )


def run_case(case: dict, **overrides) -> torch.Tensor:
    args = {k: case[k] for k in ("ref_emb", "ref_idf", "hyp_emb", "hyp_idf", "n_gram")}
    args.update(overrides)
    return mover_score(**args)


# --------------------------------------------------------------------------- n-gram embeddings


@pytest.mark.parametrize("index", range(len(NGRAM_CASES)))
def test_ngram_embeddings_match_reference(index):
    case = NGRAM_CASES[index]
    vectors, mass = ngram_embeddings(case["emb"], case["weights"], case["n"])
    torch.testing.assert_close(vectors, case["vectors"], rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(mass, case["mass"], rtol=1e-12, atol=1e-12)


def test_ngram_embeddings_by_hand():
    # Words e1 = (1, 0), e2 = (0, 1), e3 = (2, 2) with idf 1, 2, 3.
    emb = t64([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    idf = t64([1.0, 2.0, 3.0])
    # n = 1: each word scaled by its idf: (1, 0), (0, 2), (6, 6); masses 1, 2, 3.
    v, m = ngram_embeddings(emb, idf, 1)
    torch.testing.assert_close(v, t64([[1.0, 0.0], [0.0, 2.0], [6.0, 6.0]]))
    torch.testing.assert_close(m, t64([1.0, 2.0, 3.0]))
    # n = 2: windows (e1, e2), (e2, e3): 1*(1,0) + 2*(0,1) = (1, 2); 2*(0,1) + 3*(2,2) = (6, 8); masses 3, 5.
    v, m = ngram_embeddings(emb, idf, 2)
    torch.testing.assert_close(v, t64([[1.0, 2.0], [6.0, 8.0]]))
    torch.testing.assert_close(m, t64([3.0, 5.0]))
    # n = 3: one window: (1, 0) + (0, 2) + (6, 6) = (7, 8); mass 6. n = 5 > 3 words: the same single n-gram.
    for n in (3, 5):
        v, m = ngram_embeddings(emb, idf, n)
        torch.testing.assert_close(v, t64([[7.0, 8.0]]))
        torch.testing.assert_close(m, t64([6.0]))


# --------------------------------------------------------------------------- MoverScore: differential


@pytest.mark.parametrize("index", range(len(SCORE_CASES)))
def test_mover_score_matches_reference(index):
    case = SCORE_CASES[index]
    check_score(run_case(case), case["score"])


@functools.cache
def toy_setup():
    tokenizer = Tokenizer.build(REFERENCES + [s for outs in SYSTEMS.values() for s in outs])
    return tokenizer, Encoder(len(tokenizer), seed=0)


@pytest.mark.parametrize("index", range(len(END_TO_END)))
def test_scorer_on_toy_systems_matches_reference(index):
    case = END_TO_END[index]
    tokenizer, encoder = toy_setup()
    outputs = SYSTEMS[case["system"]]
    scorer = MoverScorer(tokenizer, encoder, REFERENCES, outputs, n_gram=case["n_gram"])
    got = scorer.score(outputs, REFERENCES)
    torch.testing.assert_close(got, case["scores"], rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------- MoverScore: by hand


def test_unigram_by_hand():
    # Reference words a = (1, 0), b = (0, 1); hypothesis: one word h = (2, 0), i.e. direction (1, 0).
    # Costs: |a - h| = 0, |b - h| = sqrt(2). All mass (1) of h must come from a and b.
    # idf (1, 1): masses (1/2, 1/2) -> WMD = 1/2 * 0 + 1/2 * sqrt(2); score = 1 - sqrt(2)/2 = 0.29289321881345
    ref = t64([[1.0, 0.0], [0.0, 1.0]])
    hyp = t64([[2.0, 0.0]])
    check_score(mover_score(ref, t64([1.0, 1.0]), hyp, t64([5.0]), 1), 0.29289321881345254)
    # idf (3, 1): masses (3/4, 1/4) -> WMD = sqrt(2) / 4; score = 1 - sqrt(2)/4 = 0.64644660940672627
    check_score(mover_score(ref, t64([3.0, 1.0]), hyp, t64([0.5]), 1), 0.6464466094067263)


def test_transport_plan_by_hand():
    # Reference a = (1, 0), b = (0, 1) with masses 1/2, 1/2; hypothesis a' = (3, 0) (direction of a) with
    # idf 1 and c = (-1, 0) with idf 3, i.e. masses 1/4 and 3/4.
    # Costs: a-a' 0, a-c 2, b-a' sqrt(2), b-c sqrt(2). The cheapest plan moves a->a' 1/4, a->c 1/4, b->c 1/2:
    # WMD = 1/4 * 2 + 1/2 * sqrt(2) = 0.5 + 0.70710678 -> score = 0.5 - sqrt(2)/2 = -0.20710678118654752
    ref = t64([[1.0, 0.0], [0.0, 1.0]])
    hyp = t64([[3.0, 0.0], [-1.0, 0.0]])
    check_score(mover_score(ref, t64([2.0, 2.0]), hyp, t64([1.0, 3.0]), 1), -0.20710678118654752)


def test_bigram_by_hand():
    # Reference words (1, 0), (0, 1), (-1, 0) with idf 1, 1, 1: bigrams (1, 1) and (-1, 1), masses 2 and 2 -> 1/2 each;
    # unit directions u = (1, 1)/sqrt(2), v = (-1, 1)/sqrt(2).
    # Hypothesis words (1, 0), (0, 1) with idf 1, 3: one bigram (1, 3), direction w = (1, 3)/sqrt(10), mass 1.
    # |u - w| = sqrt(2 - 2 * 4/sqrt(20)) = 0.45950584109472, |v - w| = sqrt(2 - 2 * 2/sqrt(20)) = 1.05146222423827
    # WMD = (0.45950584109472 + 1.05146222423827) / 2 -> score = 0.24451596733350522
    ref = t64([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    hyp = t64([[1.0, 0.0], [0.0, 1.0]])
    check_score(mover_score(ref, t64([1.0, 1.0, 1.0]), hyp, t64([1.0, 3.0]), 2), 0.24451596733350522)
    # With unigrams instead, the hypothesis' mass 1/4 at (1, 0) and 3/4 at (0, 1) against 1/3 each at
    # (1, 0), (0, 1), (-1, 0): the plan (1,0)->(1,0) 1/4, (0,1)->(0,1) 1/3, (0,1)->(1,0) 1/12 [sqrt 2],
    # (0,1)->(-1,0) 1/3 [sqrt 2] costs (1/12 + 1/3) * sqrt(2) = 5 sqrt(2) / 12 -> score = 1 - 5 sqrt(2)/12
    check_score(mover_score(ref, t64([1.0, 1.0, 1.0]), hyp, t64([1.0, 3.0]), 1), 1 - 5 * math.sqrt(2) / 12)


def test_opposite_single_words_score_minus_one():
    # One word each, opposite directions: cost |u - (-u)| = 2, WMD = 2, score = -1.
    check_score(mover_score(t64([[0.0, 3.0]]), t64([1.0]), t64([[0.0, -0.5]]), t64([2.0]), 1), -1.0)


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("n_gram", [1, 2, 3])
def test_identical_sentences_score_one(n_gram):
    case = SCORE_CASES[5]
    emb, idf = case["hyp_emb"], case["hyp_idf"]
    check_score(mover_score(emb, idf, emb.clone(), idf.clone(), n_gram), 1.0)


@pytest.mark.parametrize("index", [0, 6, 12, 18, 24, 31])
def test_symmetric_in_reference_and_hypothesis(index):
    case = SCORE_CASES[index]
    swapped = run_case(case, ref_emb=case["hyp_emb"], ref_idf=case["hyp_idf"],
                       hyp_emb=case["ref_emb"], hyp_idf=case["ref_idf"])
    check_score(swapped, case["score"])


@pytest.mark.parametrize("index", [1, 7, 13, 19, 26])
def test_invariant_to_idf_scale(index):
    case = SCORE_CASES[index]
    check_score(run_case(case, ref_idf=case["ref_idf"] * 4.0, hyp_idf=case["hyp_idf"] * 0.3), case["score"])


@pytest.mark.parametrize("index", [0, 2, 4, 16, 33])
def test_unigram_score_ignores_word_order_and_length(index):
    case = SCORE_CASES[index]
    assert case["n_gram"] == 1
    gen = torch.Generator().manual_seed(index)
    perm = torch.randperm(case["ref_emb"].shape[0], generator=gen)
    scale = 10.0 ** torch.empty(case["hyp_emb"].shape[0], 1, dtype=torch.float64).uniform_(-2, 2, generator=gen)
    got = run_case(case, ref_emb=case["ref_emb"][perm], ref_idf=case["ref_idf"][perm], hyp_emb=case["hyp_emb"] * scale)
    check_score(got, case["score"])


def test_bigram_score_depends_on_word_order():
    gen = torch.Generator().manual_seed(3)
    ref = torch.randn(4, 3, generator=gen, dtype=torch.float64)
    idf = torch.rand(4, generator=gen, dtype=torch.float64) + 0.5
    hyp = ref[[2, 0, 3, 1]]
    hyp_idf = idf[[2, 0, 3, 1]]
    uni = mover_score(ref, idf, hyp, hyp_idf, 1)
    bi = mover_score(ref, idf, hyp, hyp_idf, 2)
    check_score(uni, 1.0)
    assert bi.item() < 0.9


def test_scores_within_bounds():
    for case in SCORE_CASES:
        assert -1.0 - 1e-9 <= run_case(case).item() <= 1.0 + 1e-9
