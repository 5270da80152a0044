"""Hidden tests for bertscore/1: ``bert_score`` in ``bertscore/score.py``."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
import torch

from bertscore.data import REFERENCES, SYSTEMS
from bertscore.encoder import TinyEncoder
from bertscore.score import BERTScorer, bert_score
from bertscore.tokenizer import CLS_ID, PAD_ID, SEP_ID, WordTokenizer

FIXTURES = Path(__file__).parent / "fixtures"
RANDOM_CASES = torch.load(FIXTURES / "random_cases.pt", weights_only=True)
END_TO_END = torch.load(FIXTURES / "end_to_end.pt", weights_only=True)

F64 = dict(rtol=1e-9, atol=1e-10)
F32 = dict(rtol=1e-5, atol=1e-6)


def tol(t: torch.Tensor) -> dict:
    return F64 if t.dtype == torch.float64 else F32


def score(case: dict, **overrides):
    args = {k: case[k] for k in ("ref_emb", "ref_ids", "cand_emb", "cand_ids", "idf", "special_ids")}
    args.update(overrides)
    return bert_score(**args)


def assert_scores(got, want_p, want_r, want_f, **tolerance):
    p, r, f = got
    for name, g, w in (("precision", p, want_p), ("recall", r, want_r), ("f1", f, want_f)):
        w = torch.as_tensor(w, dtype=g.dtype)
        assert g.shape == w.shape, f"{name}: shape {tuple(g.shape)} != {tuple(w.shape)}"
        torch.testing.assert_close(g, w, msg=lambda m, n=name: f"{n}: {m}", **(tolerance or tol(g)))


# --------------------------------------------------------------------------- differential (reference fixtures)


@pytest.mark.parametrize("index", range(len(RANDOM_CASES)))
def test_matches_reference_on_random_batches(index):
    case = RANDOM_CASES[index]
    got = score(case)
    assert all(isinstance(t, torch.Tensor) for t in got) and len(got) == 3
    for t in got:
        assert t.dtype == case["ref_emb"].dtype
    assert_scores(got, case["precision"], case["recall"], case["f1"])


@functools.cache
def toy_tokenizer_and_encoder():
    texts = REFERENCES + [s for outputs in SYSTEMS.values() for s in outputs]
    tokenizer = WordTokenizer.from_corpus(texts)
    return tokenizer, TinyEncoder(tokenizer.vocab_size, seed=0)


@pytest.mark.parametrize("index", range(len(END_TO_END)))
def test_scorer_on_toy_systems_matches_reference(index):
    case = END_TO_END[index]
    tokenizer, encoder = toy_tokenizer_and_encoder()
    scorer = BERTScorer(
        tokenizer, encoder, layer=case["layer"], idf_references=REFERENCES if case["idf"] else None
    )
    got = scorer.score(SYSTEMS[case["system"]], REFERENCES)
    assert_scores(got, case["precision"], case["recall"], case["f1"], rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------- values checked by hand


def _hand_batch():
    """Reference [CLS] a b [SEP] and candidate [CLS] c d [SEP] [PAD] in 2-D.

    a = (1, 0), b = (0, 1); c = (3, 4) (unit vector (0.6, 0.8)), d = (-3, -4) = -c.
    The special positions carry embeddings that would change every score if they were matched:
    the reference [SEP] equals c and the candidate [SEP] equals b; the candidate [PAD] state is all zeros.
    """
    ref_ids = torch.tensor([[CLS_ID, 5, 6, SEP_ID]])
    ref_emb = torch.tensor([[[0.3, -0.2], [1.0, 0.0], [0.0, 1.0], [3.0, 4.0]]], dtype=torch.float64)
    cand_ids = torch.tensor([[CLS_ID, 7, 8, SEP_ID, PAD_ID]])
    cand_emb = torch.tensor(
        [[[-0.5, 0.9], [3.0, 4.0], [-3.0, -4.0], [0.0, 1.0], [0.0, 0.0]]], dtype=torch.float64
    )
    return ref_emb, ref_ids, cand_emb, cand_ids


def test_hand_computed_uniform_weights():
    # cos(a, c) = 0.6, cos(a, d) = -0.6, cos(b, c) = 0.8, cos(b, d) = -0.8.
    # R = (max(0.6, -0.6) + max(0.8, -0.8)) / 2 = (0.6 + 0.8) / 2 = 0.7
    # P = (max(0.6, 0.8) + max(-0.6, -0.8)) / 2 = (0.8 - 0.6) / 2 = 0.1
    # F = 2 * 0.1 * 0.7 / (0.1 + 0.7) = 0.14 / 0.8 = 0.175
    assert_scores(bert_score(*_hand_batch()), [0.1], [0.7], [0.175])


def test_hand_computed_idf_weights():
    # idf(a = id 5) = 2, idf(b = id 6) = 1, idf(c = id 7) = 1, idf(d = id 8) = 3; special ids get weight 9 here,
    # which must not matter because special tokens are never scored.
    # R = (2 * 0.6 + 1 * 0.8) / (2 + 1) = 2 / 3
    # P = (1 * 0.8 + 3 * (-0.6)) / (1 + 3) = -1 / 4
    # F = 2 * (-1/4) * (2/3) / (-1/4 + 2/3) = (-1/3) / (5/12) = -0.8
    idf = torch.tensor([9.0, 9.0, 9.0, 9.0, 9.0, 2.0, 1.0, 1.0, 3.0], dtype=torch.float64)
    assert_scores(bert_score(*_hand_batch(), idf=idf), [-0.25], [2.0 / 3.0], [-0.8])


def test_hand_computed_many_to_one_matching():
    # Reference [CLS] a a' [SEP] with a = (1, 0), a' = (2, 0); candidate [CLS] a b [SEP] with b = (0, 1).
    # Greedy matching lets both reference tokens use the candidate's a: R = (1 + 1) / 2 = 1.
    # P = (cos(a, a) + max(cos(b, a), cos(b, a'))) / 2 = (1 + 0) / 2 = 0.5;  F = 2 * 0.5 * 1 / 1.5 = 2 / 3.
    ref_ids = torch.tensor([[CLS_ID, 4, 4, SEP_ID]])
    ref_emb = torch.tensor([[[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]], dtype=torch.float64)
    cand_ids = torch.tensor([[CLS_ID, 4, 5, SEP_ID]])
    cand_emb = torch.tensor([[[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]], dtype=torch.float64)
    assert_scores(bert_score(ref_emb, ref_ids, cand_emb, cand_ids), [0.5], [1.0], [2.0 / 3.0])


def test_orthogonal_sentences_give_zero_f1_not_nan():
    # All cosines are 0, so P = R = 0 and F is defined as 0.
    ref_ids = torch.tensor([[CLS_ID, 4, 5, SEP_ID], [CLS_ID, 6, SEP_ID, PAD_ID]])
    cand_ids = torch.tensor([[CLS_ID, 7, SEP_ID], [CLS_ID, 8, SEP_ID]])
    ref_emb = torch.zeros(2, 4, 3, dtype=torch.float64)
    ref_emb[:, :, 0] = 1.0
    ref_emb[0, 2] = torch.tensor([0.0, 2.0, 0.0])
    cand_emb = torch.zeros(2, 3, 3, dtype=torch.float64)
    cand_emb[:, 1, 2] = 5.0
    cand_emb[:, [0, 2], 0] = 1.0  # specials parallel to the reference tokens: ignored
    assert_scores(bert_score(ref_emb, ref_ids, cand_emb, cand_ids), [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])


# --------------------------------------------------------------------------- properties from the paper


def test_identical_sentences_score_one():
    gen = torch.Generator().manual_seed(0)
    ids = torch.tensor([[CLS_ID, 4, 9, 4, 7, SEP_ID], [CLS_ID, 12, SEP_ID, PAD_ID, PAD_ID, PAD_ID]])
    emb = torch.randn(2, 6, 8, generator=gen, dtype=torch.float64)
    idf = torch.rand(20, generator=gen, dtype=torch.float64) + 0.1
    for weights in (None, idf):
        assert_scores(bert_score(emb, ids, emb.clone(), ids.clone(), weights), [1.0, 1.0], [1.0, 1.0], [1.0, 1.0])


@pytest.mark.parametrize("index", [0, 7, 14, 21, 28, 33])
def test_swapping_reference_and_candidate_swaps_precision_and_recall(index):
    case = RANDOM_CASES[index]
    p, r, f = score(case)
    p2, r2, f2 = score(case, ref_emb=case["cand_emb"], ref_ids=case["cand_ids"],
                       cand_emb=case["ref_emb"], cand_ids=case["ref_ids"])
    torch.testing.assert_close(p2, r, **tol(p))
    torch.testing.assert_close(r2, p, **tol(p))
    torch.testing.assert_close(f2, f, **tol(p))


@pytest.mark.parametrize("index", [1, 2, 9, 16, 22, 40])
def test_invariant_to_embedding_lengths(index):
    case = RANDOM_CASES[index]
    gen = torch.Generator().manual_seed(index)
    dtype = case["ref_emb"].dtype
    ref_scale = 10.0 ** torch.empty(case["ref_emb"].shape[:2] + (1,), dtype=dtype).uniform_(-3, 3, generator=gen)
    cand_scale = 10.0 ** torch.empty(case["cand_emb"].shape[:2] + (1,), dtype=dtype).uniform_(-3, 3, generator=gen)
    got = score(case, ref_emb=case["ref_emb"] * ref_scale, cand_emb=case["cand_emb"] * cand_scale)
    assert_scores(got, case["precision"], case["recall"], case["f1"])


@pytest.mark.parametrize("index", [3, 6, 11, 18, 27])
def test_invariant_to_token_order(index):
    case = RANDOM_CASES[index]
    gen = torch.Generator().manual_seed(index)
    perm_r = torch.randperm(case["ref_ids"].shape[1], generator=gen)
    perm_c = torch.randperm(case["cand_ids"].shape[1], generator=gen)
    got = score(
        case,
        ref_emb=case["ref_emb"][:, perm_r],
        ref_ids=case["ref_ids"][:, perm_r],
        cand_emb=case["cand_emb"][:, perm_c],
        cand_ids=case["cand_ids"][:, perm_c],
    )
    assert_scores(got, case["precision"], case["recall"], case["f1"])


@pytest.mark.parametrize("index", [4, 12, 19, 26, 41])
def test_special_and_padding_states_are_ignored(index):
    case = RANDOM_CASES[index]
    special = torch.tensor(case["special_ids"])
    gen = torch.Generator().manual_seed(index)
    dtype = case["ref_emb"].dtype
    # Extra padding columns, and garbage (huge, zero or copied-from-the-other-side) states at special positions.
    ref_ids = torch.cat([case["ref_ids"], torch.full((case["ref_ids"].shape[0], 3), PAD_ID)], dim=1)
    ref_emb = torch.cat([case["ref_emb"], torch.zeros(case["ref_emb"].shape[0], 3, case["ref_emb"].shape[2], dtype=dtype)], dim=1)
    cand_ids, cand_emb = case["cand_ids"], case["cand_emb"].clone()
    ref_special = torch.isin(ref_ids, special)
    cand_special = torch.isin(cand_ids, special)
    ref_emb[ref_special] = 1e3 * torch.randn(int(ref_special.sum()), ref_emb.shape[2], generator=gen, dtype=torch.float64).to(dtype)
    cand_emb[cand_special] = cand_emb[~cand_special][0]  # a copy of a real candidate state
    ref_emb[:, -1] = 0.0
    got = score(case, ref_emb=ref_emb, ref_ids=ref_ids, cand_emb=cand_emb, cand_ids=cand_ids)
    assert_scores(got, case["precision"], case["recall"], case["f1"])


@pytest.mark.parametrize("index", [2, 8, 20, 32])
def test_uniform_idf_equals_no_weighting_and_idf_scale_is_irrelevant(index):
    case = RANDOM_CASES[index]
    assert case["idf"] is not None
    dtype = case["ref_emb"].dtype
    vocab = case["idf"].shape[0]
    plain = score(case, idf=None)
    constant = score(case, idf=torch.full((vocab,), 2.5, dtype=dtype))
    assert_scores(constant, *plain)
    scaled = score(case, idf=case["idf"] * 7.0)
    assert_scores(scaled, case["precision"], case["recall"], case["f1"])


def test_idf_weights_come_from_the_scored_sentence():
    # Raising the weight of a word that occurs only in the reference changes recall, never precision;
    # a word that occurs only in the candidate changes precision, never recall.
    full = RANDOM_CASES[47]
    case = dict(full, **{k: full[k][:1] for k in ("ref_emb", "ref_ids", "cand_emb", "cand_ids")})
    ref_words, cand_words = set(case["ref_ids"][0].tolist()), set(case["cand_ids"][0].tolist())
    ref_only = sorted(ref_words - cand_words - set(case["special_ids"]))
    cand_only = sorted(cand_words - ref_words - set(case["special_ids"]))
    assert ref_only and cand_only
    p, r, _ = score(case)
    for word in ref_only:
        bumped = case["idf"].clone()
        bumped[word] *= 5.0
        p2, r2, _ = score(case, idf=bumped)
        torch.testing.assert_close(p2, p, **F64)
        assert (r2 - r).abs().max() > 1e-3
    for word in cand_only:
        bumped = case["idf"].clone()
        bumped[word] *= 5.0
        p3, r3, _ = score(case, idf=bumped)
        torch.testing.assert_close(r3, r, **F64)
        assert (p3 - p).abs().max() > 1e-3


def test_batch_of_pairs_equals_pairs_scored_alone():
    case = RANDOM_CASES[44]
    p, r, f = score(case)
    for b in range(case["ref_ids"].shape[0]):
        # Each row alone, trimmed of its trailing padding.
        lr = int((case["ref_ids"][b] != PAD_ID).sum())
        lc = int((case["cand_ids"][b] != PAD_ID).sum())
        assert not torch.isin(case["ref_ids"][b, :lr], torch.tensor([PAD_ID])).any()
        got = score(
            case,
            ref_emb=case["ref_emb"][b : b + 1, :lr],
            ref_ids=case["ref_ids"][b : b + 1, :lr],
            cand_emb=case["cand_emb"][b : b + 1, :lc],
            cand_ids=case["cand_ids"][b : b + 1, :lc],
        )
        assert_scores(got, p[b : b + 1], r[b : b + 1], f[b : b + 1])


@pytest.mark.parametrize("index", [0, 13, 31, 42])
def test_special_ids_argument_is_respected(index):
    # With special_ids=(PAD_ID,), [CLS] and [SEP] are scored like any word: the result must equal the default
    # result on the same batch where [CLS] and [SEP] are replaced by ordinary word ids.
    case = RANDOM_CASES[index]
    assert case["special_ids"] == [PAD_ID, CLS_ID, SEP_ID] and case["idf"] is None
    words = {CLS_ID: 40, SEP_ID: 41}
    relabel = lambda ids: ids.clone().apply_(lambda i: words.get(i, i))  # noqa: E731
    want = score(case, ref_ids=relabel(case["ref_ids"]), cand_ids=relabel(case["cand_ids"]))
    got = score(case, special_ids=(PAD_ID,))
    assert_scores(got, *want)
    assert not torch.allclose(got[2], case["f1"])


def test_scores_bounded_and_inputs_untouched():
    for case in RANDOM_CASES[:30]:
        before = {k: v.clone() for k, v in case.items() if isinstance(v, torch.Tensor)}
        p, r, _ = score(case)
        assert ((p >= -1 - 1e-6) & (p <= 1 + 1e-6)).all()
        assert ((r >= -1 - 1e-6) & (r <= 1 + 1e-6)).all()
        for k, v in before.items():
            assert torch.equal(case[k], v), f"bert_score modified its input {k}"
