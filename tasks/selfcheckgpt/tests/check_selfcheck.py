"""Trusted checks for selfcheckgpt/1: the paper's formulas recomputed here from the probe's inputs, and every reading
the paper and the masked package leave open accepted (paper.md sections in brackets)."""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from lmrbench.checks import check, close, expect

# the probe's texts (plain words and full stops: spacy's tokens are the words and the stops)
PASSAGES_AND_SAMPLES = [
    ("Alan Turing was a British mathematician. He was born in London. He worked at Bletchley Park.",
     ["Alan Turing was an English mathematician. He was born in Maida Vale in London.",
      "Turing was a mathematician and a computer scientist. He was born in London in 1912. "
      "He worked in Manchester after the war.",
      "Alan Turing was a British logician. He was born in Paris. He worked at Bletchley Park during the war."]),
    ("The cat sat on the mat. The dog ate the red apple. A bird sang in the tall tree.",
     ["The cat sat on the old mat. The dog ate the apple quickly.",
      "A cat slept on the mat all day. The dog ate a red apple. The bird sang a song."]),
    ("Marie Curie won two Nobel prizes. She was born in Warsaw. She studied physics in Paris. "
     "She discovered polonium and radium.",
     ["Marie Curie won the Nobel prize twice. She was born in Warsaw in Poland. She discovered radium.",
      "Curie studied physics and chemistry in Paris. She won a Nobel prize in physics.",
      "Marie Curie was born in Krakow. She discovered polonium with her husband.",
      "She won two Nobel prizes. She was born in Warsaw."]),
]


def _tok(text):
    return re.findall(r"\w+|[^\w\s]", text.lower())


def _sents(text):
    return [s.strip() + "." for s in text.split(".") if s.strip()]


def _scores(logps_per_sentence):
    avg = [-float(np.mean(lp)) for lp in logps_per_sentence]
    mx = [-float(np.min(lp)) for lp in logps_per_sentence]
    every = [x for lp in logps_per_sentence for x in lp]
    return {"sent_avg": avg, "sent_max": mx, "doc_avg": -float(np.mean(every)), "doc_avg_max": float(np.mean(mx))}


def _close_all(out, want, what, rtol=1e-9, atol=1e-12):
    for key in ("sent_avg", "sent_max"):
        close(np.asarray(out[key], dtype=np.float64), np.asarray(want[key]), rtol=rtol, atol=atol,
              what=f"{what}: {key}")
    for key in ("doc_avg", "doc_avg_max"):
        close(float(out[key]), want[key], rtol=rtol, atol=atol, what=f"{what}: {key}")


def _matches(out, want, rtol=1e-7, atol=1e-9):
    try:
        _close_all(out, want, "", rtol=rtol, atol=atol)
    except Exception:
        return False
    return True


@check("ngram_unigram[*]")
def unigram_scores_from_the_counts(out, ref):
    # [4] a unigram model trained on R and the N samples (maximum likelihood): p(w) = count(w) / #tokens; the
    # sentence scores are -mean log p and max(-log p); the passage scores the mean over all tokens and the mean of
    # the sentence maxima
    passage, samples = PASSAGES_AND_SAMPLES[int(ref["text"])]
    counts = Counter(t for x in [passage, *samples] for t in _tok(x))
    total = sum(counts.values())
    logps = [[math.log(counts[t] / total) for t in _tok(s)] for s in _sents(passage)]
    _close_all(out, _scores(logps), "unigram scores")


def _conditional(train_sentences, eval_sentences, n):
    """A textbook n-gram model: p(w | previous n-1 tokens, padded with <s>) by relative frequency."""
    grams, contexts = Counter(), Counter()
    for s in train_sentences:
        toks = ["<s>"] * (n - 1) + s.split()
        for j in range(n - 1, len(toks)):
            ctx = tuple(toks[j - n + 1:j])
            grams[(*ctx, toks[j])] += 1
            contexts[ctx] += 1
    logps = []
    for s in eval_sentences:
        toks = ["<s>"] * (n - 1) + s.split()
        logps.append([math.log(grams[tuple(toks[j - n + 1:j + 1])] / contexts[tuple(toks[j - n + 1:j])])
                      for j in range(n - 1, len(toks))])
    return _scores(logps)


@check("ngram_higher_order[*]")
def higher_order_ngram_either_reading(out, ref):
    # [4] the paper's "n-gram model" probability: the release reads it as the relative frequency of the n-gram among
    # all n-grams (left-padded with <s>, one n-gram per token); a textbook n-gram model conditions the token on its
    # n-1 predecessors. Both are accepted. R is part of the training text, so every score is finite.
    n = int(ref["n"])
    train = str(ref["train_tokens"]).split("|")
    evals = str(ref["eval_tokens"]).split("|")
    for key in ("sent_avg", "sent_max"):
        expect(bool(np.all(np.isfinite(np.asarray(out[key], dtype=np.float64)))), f"{key}: finite")
    joint = {k: ref[k] for k in ("sent_avg", "sent_max", "doc_avg", "doc_avg_max")}
    cond = _conditional(train, evals, n)
    expect(_matches(out, joint) or _matches(out, cond),
           f"{n}-gram scores match neither the n-gram frequency reading {joint} nor the conditional one {cond}: "
           f"{ {k: out[k] for k in joint} }")


@check("unigram_model_counts_and_smoothing")
def add_k_smoothing_by_hand(out, ref):
    # the model saw "The cat sat on the mat. The cat ran." and "A dog sat.": 15 tokens, 9 types + <unk> = 10 entries;
    # with k = 1: p(w) = (count + 1) / (15 + 10). "The cat sat.": the 3, cat 2, sat 2, "." 3 ->
    # -log p = log(25/4), log(25/3), log(25/3), log(25/4); the maximum is log(25/3)
    close(out["k1.sent_max"][0], math.log(25 / 3), rtol=1e-12, what="max -log p of the first sentence, k=1")
    close(out["k1.sent_avg"][0], (2 * math.log(25 / 4) + 2 * math.log(25 / 3)) / 4, rtol=1e-12,
          what="mean -log p of the first sentence, k=1")
    # "A zebra sat on the cat.": zebra is unseen -> <unk> with count 0 -> p = 1 / 25 (the sentence's maximum)
    close(out["k1.sent_max"][1], math.log(25), rtol=1e-12, what="an unseen token gets k / (N + k V)")


@check("mqag_scoring_rules[*]")
def mqag_scores_from_the_counts(out, ref):
    # [3] counts over samples whose answerability >= the threshold; Bayes: gamma2^Nn / (gamma1^Nm + gamma2^Nn),
    # gamma1 = b2 / (1 - b1), gamma2 = b1 / (1 - b2); soft counts weight every sample by its answerability
    answers = np.asarray(ref["answers"])
    u = np.asarray(ref["u"], dtype=np.float64)
    b1, b2, at = (float(x) for x in np.asarray(ref["params"]))
    expect(u[0] >= at, "the probe's question is answerable from R")
    good = u[1:] >= at
    match = answers[1:] == answers[0]
    nm, nn = int(np.sum(good & match)), int(np.sum(good & ~match))
    expect(nm + nn > 0, "some sample is counted")
    close(out["counting"], nn / (nm + nn), rtol=1e-12, what="counting score")
    g1, g2 = b2 / (1 - b1), b1 / (1 - b2)
    close(out["bayes"], g2 ** nn / (g1 ** nm + g2 ** nn), rtol=1e-9, atol=1e-15, what="Bayes score")
    sm, sn = float(np.sum(u[1:][match])), float(np.sum(u[1:][~match]))
    close(out["bayes_alpha"], g2 ** sn / (g1 ** sm + g2 ** sn), rtol=1e-9, atol=1e-15, what="Bayes with alpha")


@check("answer_distribution_distances[*]")
def distances_either_reading(out, ref):
    # [3] KL with a tiny smoothing constant (no zero entry here); one-best disagreement; Hellinger and total
    # variation: every common normalisation of each is accepted
    p1, p2 = np.asarray(ref["p1"], dtype=np.float64), np.asarray(ref["p2"], dtype=np.float64)
    close(out["kl"], float(np.sum(p1 * np.log(p1 / p2))), rtol=1e-6, atol=1e-9, what="KL(P1 || P2)")
    close(out["one_best"], float(np.argmax(p1) != np.argmax(p2)), atol=0, what="one-best")
    d2 = float(np.sum((np.sqrt(p1) - np.sqrt(p2)) ** 2))
    hell = [math.sqrt(d2 / 2), d2 / math.sqrt(2), d2 / 1.4142135, math.sqrt(d2), d2 / 2]
    expect(any(abs(float(out["hellinger"]) - h) <= 1e-7 + 1e-6 * h for h in hell),
           f"Hellinger {out['hellinger']} is none of {hell}")
    diff = np.abs(p1 - p2)
    tv = [float(diff.max()), float(diff.sum() / 2), float(diff.sum())]
    expect(any(abs(float(out["total_variation"]) - v) <= 1e-9 + 1e-7 * v for v in tv),
           f"total variation {out['total_variation']} is none of {tv}")
    got = np.asarray(out["all"], dtype=np.float64)
    close(got, [out["kl"], out["one_best"], out["hellinger"], out["total_variation"]], rtol=1e-12, atol=0,
          what="get_prob_distances = (kl, one-best, hellinger, total variation)")


@check("bertscore_variant[*]")
def bertscore_one_minus_mean_best_match(out, ref):
    # [2] S(i) = 1 - mean_n max_k B(r_i, s_k^n): the best-matching sentence of each sample, averaged over samples.
    # Which of BERTScore's precision, recall or F1 is B is not decided: any is accepted (F1 is the release's).
    got = np.asarray(out["scores"], dtype=np.float64)
    readings = {k: 1.0 - np.asarray(ref[f"best_{k}"], dtype=np.float64).mean(axis=0) for k in ("F", "P", "R")}
    ok = [k for k, want in readings.items() if got.shape == want.shape and np.allclose(got, want, rtol=0, atol=2e-5)]
    expect(bool(ok), f"scores {got} are none of {readings}")


@check("nli_variant[*]")
def nli_mean_contradiction_probability(out, ref):
    # [5] S(i) = mean_n P(contradiction | r_i, S^n), normalised over entailment and contradiction (the classifier
    # here has those two classes, contradiction at index 1 as its config says). The pair's order is accepted either
    # way (paper: sample then sentence; release: sentence then sample).
    got = np.asarray(out["scores"], dtype=np.float64)
    readings = {k: np.asarray(ref[k], dtype=np.float64).mean(axis=1) for k in ("sentence_first", "sample_first")}
    ok = [k for k, want in readings.items() if got.shape == want.shape and np.allclose(got, want, rtol=0, atol=2e-5)]
    expect(bool(ok), f"scores {got} are none of {readings}")


@check("prompt_answer_mapping")
def yes_no_mapping(out, ref):
    # [6] Yes -> 0, No -> 1, anything else -> 0.5 (texts in the probe's order)
    want = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.0, 1.0]
    close(out["mapped"], want, rtol=0, atol=0, what="mapped answers")
