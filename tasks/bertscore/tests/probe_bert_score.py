"""Probe for bertscore/1: ``bert_score`` in ``bertscore/score.py``. Runs in the sandbox; emits outputs only,
never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_bert_score.py add the hand-computed scores and the metric's properties."""

from __future__ import annotations

import functools
from pathlib import Path

import torch

from bertscore.data import REFERENCES, SYSTEMS
from bertscore.encoder import TinyEncoder
from bertscore.score import BERTScorer, bert_score
from bertscore.tokenizer import CLS_ID, PAD_ID, SEP_ID, WordTokenizer
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
RANDOM_CASES = torch.load(FIXTURES / "random_cases.pt", weights_only=True)
END_TO_END = torch.load(FIXTURES / "end_to_end.pt", weights_only=True)

# the old tests' tolerances, by the embeddings' dtype (the outputs must keep it)
F64 = dict(rtol=1e-9, atol=1e-10)
F32 = dict(rtol=1e-5, atol=1e-6)


def score(c: dict, **overrides):
    args = {k: c[k] for k in ("ref_emb", "ref_ids", "cand_emb", "cand_ids", "idf", "special_ids")}
    args.update(overrides)
    return bert_score(**args)


def named(got) -> dict:
    p, r, f = got
    return {"precision": p, "recall": r, "f1": f}


def by_dtype(indices):
    """Register a case per fixture index, with the old tolerance of that fixture's dtype."""
    f64 = [i for i in indices if RANDOM_CASES[i]["ref_emb"].dtype == torch.float64]
    f32 = [i for i in indices if RANDOM_CASES[i]["ref_emb"].dtype != torch.float64]

    def register(fn):
        case(params=f64, ids=[str(i) for i in f64], **F64)(fn)
        case(params=f32, ids=[str(i) for i in f32], **F32)(fn)
        return fn

    return register


# --------------------------------------------------------------------------- differential (the reference's outputs)


@by_dtype(range(len(RANDOM_CASES)))
def matches_reference_on_random_batches(index):
    got = score(RANDOM_CASES[index])
    return {"n_outputs": len(got), "all_tensors": all(isinstance(t, torch.Tensor) for t in got), **named(got)}


@functools.cache
def toy_tokenizer_and_encoder():
    texts = REFERENCES + [s for outputs in SYSTEMS.values() for s in outputs]
    tokenizer = WordTokenizer.from_corpus(texts)
    return tokenizer, TinyEncoder(tokenizer.vocab_size, seed=0)


@case(params=range(len(END_TO_END)), rtol=1e-5, atol=1e-5)
def scorer_on_toy_systems_matches_reference(index):
    c = END_TO_END[index]
    tokenizer, encoder = toy_tokenizer_and_encoder()
    scorer = BERTScorer(tokenizer, encoder, layer=c["layer"], idf_references=REFERENCES if c["idf"] else None)
    return named(scorer.score(SYSTEMS[c["system"]], REFERENCES))


# --------------------------------------------------------------------------- values checked by hand (check file)


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


@case(**F64)
def hand_computed_uniform_weights():
    return named(bert_score(*_hand_batch()))


@case(**F64)
def hand_computed_idf_weights():
    idf = torch.tensor([9.0, 9.0, 9.0, 9.0, 9.0, 2.0, 1.0, 1.0, 3.0], dtype=torch.float64)
    return named(bert_score(*_hand_batch(), idf=idf))


@case(**F64)
def hand_computed_many_to_one_matching():
    ref_ids = torch.tensor([[CLS_ID, 4, 4, SEP_ID]])
    ref_emb = torch.tensor([[[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]], dtype=torch.float64)
    cand_ids = torch.tensor([[CLS_ID, 4, 5, SEP_ID]])
    cand_emb = torch.tensor([[[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]], dtype=torch.float64)
    return named(bert_score(ref_emb, ref_ids, cand_emb, cand_ids))


@case(**F64)
def orthogonal_sentences_give_zero_f1_not_nan():
    ref_ids = torch.tensor([[CLS_ID, 4, 5, SEP_ID], [CLS_ID, 6, SEP_ID, PAD_ID]])
    cand_ids = torch.tensor([[CLS_ID, 7, SEP_ID], [CLS_ID, 8, SEP_ID]])
    ref_emb = torch.zeros(2, 4, 3, dtype=torch.float64)
    ref_emb[:, :, 0] = 1.0
    ref_emb[0, 2] = torch.tensor([0.0, 2.0, 0.0])
    cand_emb = torch.zeros(2, 3, 3, dtype=torch.float64)
    cand_emb[:, 1, 2] = 5.0
    cand_emb[:, [0, 2], 0] = 1.0  # specials parallel to the reference tokens: ignored
    return named(bert_score(ref_emb, ref_ids, cand_emb, cand_ids))


# --------------------------------------------------------------------------- properties from the paper (check file)


@case(**F64)
def identical_sentences_score_one():
    gen = torch.Generator().manual_seed(0)
    ids = torch.tensor([[CLS_ID, 4, 9, 4, 7, SEP_ID], [CLS_ID, 12, SEP_ID, PAD_ID, PAD_ID, PAD_ID]])
    emb = torch.randn(2, 6, 8, generator=gen, dtype=torch.float64)
    idf = torch.rand(20, generator=gen, dtype=torch.float64) + 0.1
    return {"uniform": named(bert_score(emb, ids, emb.clone(), ids.clone(), None)),
            "idf": named(bert_score(emb, ids, emb.clone(), ids.clone(), idf))}


@by_dtype([0, 7, 14, 21, 28, 33])
def swapping_reference_and_candidate_swaps_precision_and_recall(index):
    c = RANDOM_CASES[index]
    swapped = score(c, ref_emb=c["cand_emb"], ref_ids=c["cand_ids"], cand_emb=c["ref_emb"], cand_ids=c["ref_ids"])
    return {"original": named(score(c)), "swapped": named(swapped)}


@by_dtype([1, 2, 9, 16, 22, 40])
def invariant_to_embedding_lengths(index):
    c = RANDOM_CASES[index]
    gen = torch.Generator().manual_seed(index)
    dtype = c["ref_emb"].dtype
    ref_scale = 10.0 ** torch.empty(c["ref_emb"].shape[:2] + (1,), dtype=dtype).uniform_(-3, 3, generator=gen)
    cand_scale = 10.0 ** torch.empty(c["cand_emb"].shape[:2] + (1,), dtype=dtype).uniform_(-3, 3, generator=gen)
    changed = score(c, ref_emb=c["ref_emb"] * ref_scale, cand_emb=c["cand_emb"] * cand_scale)
    return {"original": named(score(c)), "changed": named(changed)}


@by_dtype([3, 6, 11, 18, 27])
def invariant_to_token_order(index):
    c = RANDOM_CASES[index]
    gen = torch.Generator().manual_seed(index)
    perm_r = torch.randperm(c["ref_ids"].shape[1], generator=gen)
    perm_c = torch.randperm(c["cand_ids"].shape[1], generator=gen)
    changed = score(c, ref_emb=c["ref_emb"][:, perm_r], ref_ids=c["ref_ids"][:, perm_r],
                    cand_emb=c["cand_emb"][:, perm_c], cand_ids=c["cand_ids"][:, perm_c])
    return {"original": named(score(c)), "changed": named(changed)}


@by_dtype([4, 12, 19, 26, 41])
def special_and_padding_states_are_ignored(index):
    c = RANDOM_CASES[index]
    special = torch.tensor(c["special_ids"])
    gen = torch.Generator().manual_seed(index)
    dtype = c["ref_emb"].dtype
    # Extra padding columns, and garbage (huge, zero or copied-from-the-other-side) states at special positions.
    ref_ids = torch.cat([c["ref_ids"], torch.full((c["ref_ids"].shape[0], 3), PAD_ID)], dim=1)
    ref_emb = torch.cat([c["ref_emb"], torch.zeros(c["ref_emb"].shape[0], 3, c["ref_emb"].shape[2], dtype=dtype)],
                        dim=1)
    cand_ids, cand_emb = c["cand_ids"], c["cand_emb"].clone()
    ref_special = torch.isin(ref_ids, special)
    cand_special = torch.isin(cand_ids, special)
    ref_emb[ref_special] = 1e3 * torch.randn(int(ref_special.sum()), ref_emb.shape[2], generator=gen,
                                             dtype=torch.float64).to(dtype)
    cand_emb[cand_special] = cand_emb[~cand_special][0]  # a copy of a real candidate state
    ref_emb[:, -1] = 0.0
    changed = score(c, ref_emb=ref_emb, ref_ids=ref_ids, cand_emb=cand_emb, cand_ids=cand_ids)
    return {"original": named(score(c)), "changed": named(changed)}


@by_dtype([2, 8, 20, 32])
def uniform_idf_equals_no_weighting_and_idf_scale_is_irrelevant(index):
    c = RANDOM_CASES[index]
    dtype = c["ref_emb"].dtype
    has_idf = c["idf"] is not None
    out = {"has_idf": has_idf, "original": named(score(c))}
    if has_idf:
        vocab = c["idf"].shape[0]
        out["plain"] = named(score(c, idf=None))
        out["constant"] = named(score(c, idf=torch.full((vocab,), 2.5, dtype=dtype)))
        out["scaled"] = named(score(c, idf=c["idf"] * 7.0))
    return out


@case(**F64)
def idf_weights_come_from_the_scored_sentence():
    # Raising the weight of a word that occurs only in the reference changes recall, never precision;
    # a word that occurs only in the candidate changes precision, never recall.
    full = RANDOM_CASES[47]
    c = dict(full, **{k: full[k][:1] for k in ("ref_emb", "ref_ids", "cand_emb", "cand_ids")})
    ref_words, cand_words = set(c["ref_ids"][0].tolist()), set(c["cand_ids"][0].tolist())
    ref_only = sorted(ref_words - cand_words - set(c["special_ids"]))
    cand_only = sorted(cand_words - ref_words - set(c["special_ids"]))
    out = {"ref_only": ref_only, "cand_only": cand_only, "base": named(score(c))}
    for word in ref_only + cand_only:
        bumped = c["idf"].clone()
        bumped[word] *= 5.0
        out[f"bumped{word}"] = named(score(c, idf=bumped))
    return out


@case(**F64)
def batch_of_pairs_equals_pairs_scored_alone():
    c = RANDOM_CASES[44]
    out = {"batch": named(score(c))}
    for b in range(c["ref_ids"].shape[0]):
        # Each row alone, trimmed of its trailing padding.
        lr = int((c["ref_ids"][b] != PAD_ID).sum())
        lc = int((c["cand_ids"][b] != PAD_ID).sum())
        out[f"pad_inside{b}"] = bool(torch.isin(c["ref_ids"][b, :lr], torch.tensor([PAD_ID])).any())
        out[f"row{b}"] = named(score(c, ref_emb=c["ref_emb"][b : b + 1, :lr], ref_ids=c["ref_ids"][b : b + 1, :lr],
                                     cand_emb=c["cand_emb"][b : b + 1, :lc], cand_ids=c["cand_ids"][b : b + 1, :lc]))
    return out


@by_dtype([0, 13, 31, 42])
def special_ids_argument_is_respected(index):
    # With special_ids=(PAD_ID,), [CLS] and [SEP] are scored like any word: the result must equal the default
    # result on the same batch where [CLS] and [SEP] are replaced by ordinary word ids.
    c = RANDOM_CASES[index]
    words = {CLS_ID: 40, SEP_ID: 41}
    relabel = lambda ids: ids.clone().apply_(lambda i: words.get(i, i))  # noqa: E731
    return {"default_specials": c["special_ids"] == [PAD_ID, CLS_ID, SEP_ID], "no_idf": c["idf"] is None,
            "original": named(score(c)),
            "relabelled": named(score(c, ref_ids=relabel(c["ref_ids"]), cand_ids=relabel(c["cand_ids"]))),
            "pad_only": named(score(c, special_ids=(PAD_ID,)))}


@by_dtype(range(30))
def scores_bounded_and_inputs_untouched(index):
    c = RANDOM_CASES[index]
    p, r, _ = score(c)
    # the inputs after the call: the check compares them with the reference run's (which leaves them unchanged)
    inputs = {k: v for k, v in c.items() if isinstance(v, torch.Tensor)}
    return {"precision": p, "recall": r, "inputs_after": inputs}
