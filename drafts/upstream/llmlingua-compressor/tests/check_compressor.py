"""Trusted checks for llmlingua-compressor/1 (never enter the sandbox).

The release's exact token choices depend on conventions the paper does not fix (where a threshold falls between
equal ranks, how segment boundaries meet document boundaries), so the token-level outputs are judged by meaning:
the compressed documents are a subsequence of the original ones, the question-relevant words survive the
contrastive stage, kept documents are the best-ranked ones, segments marked compress=False stay verbatim, and the
reported sizes agree with the compressed text. Document rankings are compared where the conditional perplexities
are far apart (margins >= 0.15 nats, measured on the release, see NOTES.md)."""

from __future__ import annotations

import re

from lmrbench.checks import check, equal, expect

DOCS = [
    "Tall pine forests cover the northern hills where wolves and deer roam freely during long winter months.",
    "The Rhone river flows through the old city of Lyon before it meets the Saone near the southern bridge.",
    "Bakers in small villages rise before dawn to knead dough and light wooden ovens for fresh morning bread.",
    "Lyon hosts a famous festival of lights each December when candles glow in windows across the old city.",
    "Copper wires carry electric current between stations, and engineers test each cable for hidden faults.",
]
QUESTION = "Which river flows through the old city of Lyon?"
INSTRUCTION = "Answer the question from the documents."
# Question perplexity (+ restrictive statement) conditioned on each document, BagLM of the probe (release run):
# D1 6.295 < D3 6.840 < D2 7.319 < D0 7.469 < D4 7.695 -> question-aware rank order.
RANK = [1, 3, 2, 0, 4]
# Token lengths of the documents under the probe's tokenizer (documents_setup): 18, 20, 19, 19, 17.
LENGTHS = [18, 20, 19, 19, 17]


def _list(out, key):
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key} is not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def _body(out, instruction=True, question=True):
    text = out["compressed_prompt"]
    if instruction:
        expect(text.startswith(INSTRUCTION + "\n\n"), "the instruction comes first, then a blank line")
        text = text[len(INSTRUCTION) + 2:]
    if question:
        expect(text.endswith("\n\n" + QUESTION) or text == QUESTION, "the question comes last, after a blank line")
        text = text[: -len(QUESTION)].rstrip("\n")
    return text


def _is_subsequence(small, big):
    it = iter(big)
    return all(ch in it for ch in small)


def _words(text):
    return re.findall(r"[A-Za-z0-9]+", text)


def _sizes(out):
    # byte-level GPT tokenizer in the probe: one token per byte; separators may or may not be counted
    n = len(out["compressed_prompt"].encode())
    expect(abs(out["compressed_tokens"] - n) <= 8, f"compressed_tokens {out['compressed_tokens']} vs {n} bytes")
    ratio = float(out["ratio"].rstrip("x"))
    want = out["origin_tokens"] / max(out["compressed_tokens"], 1)
    expect(abs(ratio - want) <= 0.051, f"ratio {out['ratio']} vs origin/compressed {want:.3f}")


def _doc_indices(text):
    parts = [p for p in text.split("\n\n") if p]
    idx = []
    for p in parts:
        expect(p in DOCS, f"a kept document is not one of the inputs verbatim: {p[:40]!r}")
        idx.append(DOCS.index(p))
    return idx


@check("coarse_rank_all[longllmlingua]")
def rank_long(out, ref):
    idx = _doc_indices(_body(out))
    equal(sorted(idx), [0, 1, 2, 3, 4], what="every document kept under a large budget")
    equal(idx, RANK, what="documents in question-aware rank order (lowest conditional perplexity first)")
    _sizes(out)


@check("coarse_rank_all[llmlingua]")
def rank_plain(out, ref):
    idx = _doc_indices(_body(out))
    want = _doc_indices(_body(ref))
    equal(sorted(idx), [0, 1, 2, 3, 4], what="every document kept under a large budget")
    equal(idx[:2], want[:2], what="the two documents of highest own perplexity first")


@check("coarse_budget[*]")
def budget(out, ref):
    idx = _doc_indices(_body(out, instruction=False))
    # the case (budget, order) is read from the reference's kept documents (trusted)
    ref_idx = _doc_indices(_body(ref, instruction=False))
    budgets = {(1, 3): 24, (1, 3, 2): 40, (1,): 8}
    key = tuple(sorted(ref_idx, key=RANK.index))
    expect(key in budgets, "unexpected reference")
    budget_tokens = budgets[key]
    fit, total = 0, 0
    for d in RANK:
        if total + LENGTHS[d] > budget_tokens:
            break
        total += LENGTHS[d]
        fit += 1
    m = len(idx)
    # whether the document that crosses the budget is kept is not decided: accept both
    expect(max(fit, 1) <= m <= fit + 1, f"{m} documents kept for a budget of {budget_tokens} tokens")
    equal(sorted(idx, key=RANK.index), RANK[:m], what="the kept documents are the best-ranked ones")
    by_rank, by_index = sorted(ref_idx, key=RANK.index), sorted(ref_idx)
    if by_rank != by_index:  # the reference shows which order the case asked for
        if ref_idx == by_index:
            equal(idx, sorted(idx), what="original order kept")
        else:
            equal(idx, sorted(idx, key=RANK.index), what="kept documents reordered by rank")
    _sizes(out)


@check("token_level_plain[*]")
def plain(out, ref):
    text = _body(out, instruction=False, question=False)
    original = "\n\n".join(_list(out, "context"))
    expect(_list(out, "context") == _list(ref, "context"), "same inputs")
    expect(_is_subsequence(text, original), "the compressed text keeps characters of the original in order")
    expect(0 < len(text) < 0.8 * len(original), "something was removed, something kept")
    got, want = set(_words(text)), set(_words(_body(ref, instruction=False, question=False)))
    overlap = len(got & want) / max(1, len(got | want))
    expect(overlap >= 0.3, f"kept words agree with the high-perplexity choice (Jaccard {overlap:.2f})")
    _sizes(out)


@check("token_level_contrastive[*]")
def contrastive(out, ref):
    text = _body(out, instruction=False)
    original = "\n\n".join(_list(out, "context"))
    expect(_is_subsequence(text, original), "the compressed documents are a subsequence of the original")
    expect(len(text) < 0.8 * len(original), "the documents were compressed")
    words = set(_words(text))
    for w in ("river", "flows", "city"):
        expect(w in words, f"question word {w!r} kept by the contrastive perplexity")
    _sizes(out)


@check("full_pipeline[*]")
def pipeline(out, ref):
    text = _body(out)
    ordered = "\n\n".join(_list(out, "context")[d] for d in RANK)
    expect(_is_subsequence(text, ordered), "compressed documents follow the rank order, as a subsequence")
    expect(len(text) < 0.6 * len(ordered), "the documents were compressed")
    words = set(_words(text))
    for w in ("river", "flows", "city"):
        expect(w in words, f"question word {w!r} kept")
    _sizes(out)


@check("structured_segments")
def structured(out, ref):
    text = _body(out)
    expect(text.startswith(DOCS[4]), "the compress=False segment is kept verbatim")
    rest = text[len(DOCS[4]):]
    original_rest = _list(out, "context")[0][len(DOCS[4]):] + "\n\n" + _list(out, "context")[1]
    expect(_is_subsequence(rest, original_rest), "the rest is a subsequence of the original")
    expect(len(rest) < 0.8 * len(original_rest), "the rate=0.4 segments were compressed")
    _sizes(out)


@check("refusals")
def refusals(out, ref):
    expect(out["rate_above_one"] is True, "rate > 1 refused")
    expect(out["no_question"] is True, "LongLLMLingua ranking without a question refused")


@check("coarse_rank_baselines[*]")
def baselines(out, ref):
    idx = _doc_indices(_body(out, instruction=False))
    equal(sorted(idx), [0, 1, 2, 3, 4], what="every document kept under a large budget")
    equal(idx[0], 1, what="the document sharing the question's words ranked first")


# Sentences of the sentence_filter case with the question's perplexity conditioned on each (release run):
# Rhone 4.858 (20 tokens), Lyon 6.175 (19), Tall 7.327 (18), Bakers 7.705 (19), Copper 7.747 (17), Quiet 8.215 (16)
SENTENCES = [(DOCS[1], 20), (DOCS[3], 19), (DOCS[0], 18), (DOCS[2], 19), (DOCS[4], 17),
             ("Quiet lakes mirror grey clouds while fishermen mend green nets on wooden piers at sunrise.", 16)]


@check("sentence_filter[*]")
def sentences(out, ref):
    text = _body(out, instruction=False)
    kept = [s.strip() for s in re.findall(r"[^.!?]+[.!?]+", text)]
    known = [s for s, _ in SENTENCES]
    for s in kept:
        expect(s in known, f"a kept piece is not a whole input sentence: {s[:40]!r}")
    ref_kept = [s.strip() for s in re.findall(r"[^.!?]+[.!?]+", _body(ref, instruction=False))]
    # budget = target_token * token_budget_ratio (1.4): 28 or 63 tokens; read the case from the reference
    budget_tokens = 28 if len(ref_kept) <= 2 else 63
    fit, total = 0, 0
    for _, n in SENTENCES:
        if total + n > budget_tokens:
            break
        total += n
        fit += 1
    expect(max(fit, 1) <= len(kept) <= fit + 1, f"{len(kept)} sentences kept for a budget of {budget_tokens}")
    equal(sorted(kept, key=known.index), known[: len(kept)], what="the question-relevant sentences are kept")
    original = "\n\n".join(_list(out, "context"))
    expect(_is_subsequence("".join(kept), original), "kept sentences in their original order")
