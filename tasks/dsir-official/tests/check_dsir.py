"""Trusted checks for dsir-official/1: hand-derived feature counts and importance weights from the paper's
definitions, and the Gumbel top-k resampling judged statistically (any correct sampler passes)."""

from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

# tokens of the probe's FEATURE_TEXTS under nltk's WordPunctTokenizer (\w+|[^\w\s]+):
# "the boat , the river ." -> 6; "fish fish fish and fish" -> 5;
# "it's the river's shore ; rain ... again" -> it ' s the river ' s shore ; rain ... again = 12; "a" -> 1; "" -> 0;
# "water water" -> 2; ten words -> 10
TOKENS = [6, 5, 12, 1, 0, 2, 10]


def _ngrams(length: int, n: int) -> int:
    """Number of n-grams of orders 1..n of a text of `length` tokens."""
    return sum(max(length - i + 1, 0) for i in range(1, n + 1))


def _feature_totals(i: int, n: int):
    def fn(out, ref):
        # every n-gram of orders 1..n is counted once, in one bucket, whatever the number of buckets
        expect(int(out["len_big"]) == 2**20 and int(out["len_small"]) == 13, "one entry per bucket")
        close(out["sum_big"], float(_ngrams(TOKENS[i], n)), rtol=0, atol=0, what=f"n-grams of text {i} (n = {n})")
        close(out["sum_small"], out["sum_big"], rtol=0, atol=0, what="the total does not depend on the buckets")
        expect(float(out["min_small"]) >= 0, "counts are non-negative")

    return fn


# the probe's cases features[3 * i + n - 1] are text i with n-grams up to order n
for _i in range(len(TOKENS)):
    for _n in (1, 2, 3):
        check(f"features[{3 * _i + _n - 1}]")(_feature_totals(_i, _n))


@check("features[3]")
def repeated_unigram(out, ref):
    # "fish fish fish and fish", unigrams only: fish x4, and x1
    close(out["sorted_counts"], [1.0, 4.0], rtol=0, atol=0, what="unigram counts")
    close(out["sum_big"], 5.0, rtol=0, atol=0, what="5 unigrams")


@check("features[4]")
def repeated_bigram(out, ref):
    # "fish fish fish and fish", n = 2: unigrams fish 4, and 1; bigrams "fish fish" 2, "fish and" 1, "and fish" 1
    close(out["sorted_counts"], [1.0, 1.0, 1.0, 2.0, 4.0], rtol=0, atol=0, what="unigram + bigram counts")


@check("features[1]")
def punctuation_tokens(out, ref):
    # "the boat , the river ." n = 2: 6 unigrams (the x2) + 5 distinct bigrams
    close(out["sum_big"], 11.0, rtol=0, atol=0, what="6 unigrams + 5 bigrams")
    close(out["sorted_counts"], [1.0] * 9 + [2.0], rtol=0, atol=0, what="counts")


@check("features[8]")
def wordpunct_trigrams(out, ref):
    # 12 wordpunct tokens, n = 3: 12 + 11 + 10 n-grams
    close(out["sum_big"], 33.0, rtol=0, atol=0, what="12 + 11 + 10 n-grams")


@check("featurizer_and_length[*]")
def token_lengths_and_filter(out, ref):
    n = _param_from_sums(ref)
    for i, length in enumerate(TOKENS):
        close(out[f"sum{i}"], float(_ngrams(length, n)), rtol=0, atol=0, what=f"n-grams of text {i} (n = {n})")
        if length:
            close(out[f"tokens{i}"], float(length), rtol=0, atol=0, what=f"length in tokens of text {i}")
    # min_example_length 4 over lengths [0, 3, 4, 5, 100]: the minimum itself is long enough
    equal([bool(out[f"filter.{j}"]) for j in range(5)], [False, False, True, True, True], what="length filter")


def _param_from_sums(ref) -> int:
    # the reference's n: text 6 has 10 tokens -> 10, 19 or 27 n-grams for n = 1, 2, 3
    return {10.0: 1, 19.0: 2, 27.0: 3}[float(ref["sum6"])]


@check("featurizer_tokenizer_default_is_wordpunct")
def wordpunct_default(out, ref):
    # "don't stop,now!" -> don ' t stop , now ! (7 tokens, all distinct)
    close(out["sum"], 7.0, rtol=0, atol=0, what="7 wordpunct tokens")


@check("features_accumulate")
def counts_accumulate(out, ref):
    # "the boat , the river ." (6 + 5) + "the boat" (2 + 1) = 14 n-grams added into one array
    close(out["sum"], 14.0, rtol=0, atol=0, what="counts added to the given array")


@check("fit_token_budgets_agree_on_small_data")
def raw_fit_budget(out, ref):
    # an integer num_tokens_to_fit far below the raw data's size fits the raw model on part of it
    # (fit_importance_estimator's docstring; paper: a sample of the raw data suffices): the weights change
    expect(float(out["frac_changed_small_budget"]) > 0.3, "a 10-token budget fits the raw model on all raw data")


@check("importance_weights[*]")
def target_topic_is_upweighted(out, ref):
    expect(float(out["topic_a_mean_minus_b"]) > 1.0, "target-like (topic A) raw examples weigh more than topic B")


@check("gumbel_resampling_k1[*]")
def weights_by_hand_and_sampling_frequencies(out, ref):
    # raw unigram counts (18 tokens): river 3, water 3, fish 3, boat 1, lake 1, shore 1, market 3, stock 2, price 1;
    # target (36 tokens): river 6, water 6, fish 6, boat 4, lake 4, shore 4, market 3, stock 2, price 1.
    # log ratios: river/water/fish 0, boat/lake/shore ln 2, market/stock/price -ln 2, so the six examples weigh
    # 0, ln2, 2 ln2, -ln2, -2 ln2, -3 ln2
    ln2 = math.log(2.0)
    close(out["weights"], [0.0, ln2, 2 * ln2, -ln2, -2 * ln2, -3 * ln2], rtol=0, atol=1e-4, what="log weights")
    reps = int(ref["reps"])
    counts = np.asarray(out["counts"], dtype=float)
    close(counts.sum(), float(reps), rtol=0, atol=0, what="one example per draw (k = 1)")
    w = np.array([1.0, 2.0, 4.0, 0.5, 0.25, 0.125])
    p = w / w.sum()
    for i in range(6):
        sd = math.sqrt(reps * p[i] * (1 - p[i]))
        expect(abs(counts[i] - reps * p[i]) <= 4.5 * sd + 1.0,
               f"example {i} drawn {counts[i]:.0f} times in {reps}, expected {reps * p[i]:.1f} (w_i / sum w)")


@check("gumbel_resampling_k3")
def sampling_without_replacement(out, ref):
    expect(bool(out["sizes_ok"]), "every draw holds 3 distinct examples")
    expect(int(out["short_drawn"]) == 0, "examples below min_example_length are never drawn")
    expect(int(out["n_distinct_sets"]) >= 5, "resampling is random (not the deterministic top-k)")
    w = np.asarray(ref["weights"], dtype=float)
    eligible = ~np.array([bool(ref[f"short_mask.{i}"]) for i in range(len(w))])
    counts = np.asarray(out["counts"], dtype=float)
    close(counts.sum(), 120.0, rtol=0, atol=0, what="40 draws of 3")
    drawn_mean = float((counts * w).sum() / counts.sum())
    # uniform sampling over the eligible examples would give their mean weight (standard error ~0.2 here);
    # sampling proportionally to exp(w) gives a much higher one (the reference: see NOTES.md)
    expect(drawn_mean > float(w[eligible].mean()) + 1.0, f"drawn examples' mean log weight {drawn_mean:.2f} "
           f"is not well above the eligible mean {float(w[eligible].mean()):.2f}")


@check("separate_targets[*]")
def one_selection_per_target(out, ref):
    k = len([key for key in ref if key.startswith("ids.")])
    equal(len([key for key in out if key.startswith("ids.")]), k, what="k examples in all")


@check("save_load_round_trip[*]")
def loaded_state_gives_the_same_weights(out, ref):
    close(out["after"], out["before"], rtol=1e-9, atol=1e-9, what="weights after load")
    expect(bool(out["is_dsir"]), "HashedNgramDSIR is a DSIR")
