"""Trusted checks for hf-assisted/1 (never enter the sandbox).

Greedy assisted generation must reproduce the same run's plain greedy generation token for token (paper: greedy
decoding), with the same processed scores per generated token. Sampled outputs are judged statistically against
the target's own next-token distribution `p` that the probe reads from the model (paper: correctness of
Algorithm 1), and the number of target calls against the acceptance rate `alpha = sum_x min(p(x), q(x))` the
paper gives. Nothing here pins the random stream: any correct implementation passes with probability about
1 - 1e-4 per sampled case."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

# Chi-square critical values at p = 1e-4 by degrees of freedom.
CHI2_CRIT = {1: 15.14, 2: 18.42, 3: 21.11}
SIGMAS = 4.5


def _arr(x, dtype=np.float64):
    return np.asarray(x, dtype=dtype)


def _chi_square(counts, p):
    """Pearson's statistic with bins whose expected count is under 5 pooled into one bin."""
    counts, p = _arr(counts), _arr(p)
    n = counts.sum()
    exp = n * p
    small = exp < 5
    obs_b = list(counts[~small])
    exp_b = list(exp[~small])
    if small.any():
        obs_b.append(counts[small].sum())
        exp_b.append(exp[small].sum())
    obs_b, exp_b = np.array(obs_b), np.array(exp_b)
    keep = exp_b > 0
    expect(bool((obs_b[~keep] == 0).all()), f"tokens the target gives probability 0: {counts} vs p = {p}")
    stat = float(((obs_b[keep] - exp_b[keep]) ** 2 / exp_b[keep]).sum())
    return stat, int(keep.sum()) - 1


def _same_distribution(out, what):
    counts, p = _arr(out["counts"]), _arr(out["p"])
    equal(int(counts.sum()), int(out["n_tokens"]), what=f"{what}: counted tokens")
    stat, dof = _chi_square(counts, p)
    expect(stat <= CHI2_CRIT[dof], f"{what}: sampled token frequencies {counts.tolist()} do not follow the target's "
           f"distribution p = {np.round(p, 4).tolist()} (chi-square {stat:.1f} > {CHI2_CRIT[dof]} with {dof} dof)")


# ---------------------------------------------------------------- greedy


def _greedy_same(out, what):
    plain, assisted = _arr(out["plain"], np.int64), _arr(out["assisted"], np.int64)
    equal(assisted.shape, plain.shape, what=f"{what}: sequence length")
    equal(assisted.tolist(), plain.tolist(), what=f"{what}: assisted greedy tokens = plain greedy tokens")


@check("greedy_equivalence[*]")
def greedy_equivalence(out, ref):
    _greedy_same(out, "greedy")
    # one processed score row per generated token, the target's own (paper: greedy special case; `scores` doc)
    equal(_arr(out["assisted_scores"]).shape, _arr(out["plain_scores"]).shape, what="scores shape")
    close(out["assisted_scores"], out["plain_scores"], rtol=1e-5, atol=1e-5, what="scores of the generated tokens")
    # one target call per step; with the same guesses, the same steps as the release
    equal(int(out["target_calls"]), int(ref["target_calls"]), what="target forward calls")


@check("greedy_with_masks[*]")
def greedy_with_masks(out, ref):
    _greedy_same(out, "left-padded attention mask (and token type ids)")
    equal(_arr(out["assisted_scores"]).shape, _arr(out["plain_scores"]).shape, what="scores shape")
    close(out["assisted_scores"], out["plain_scores"], rtol=1e-5, atol=1e-5, what="scores of the generated tokens")


@check("greedy_eos")
def greedy_eos(out, ref):
    _greedy_same(out, "end-of-sequence")
    equal(int(_arr(out["assisted"], np.int64)[-1]), int(out["eos"]), what="ends at the eos token")


@check("prompt_lookup_greedy[*]")
def prompt_lookup_greedy(out, ref):
    _greedy_same(out, "prompt lookup")
    n_new = len(_arr(out["plain"])) - 10
    expect(int(out["target_calls"]) < n_new, f"prompt lookup saves target calls on a repetitive prompt "
           f"({out['target_calls']} calls for {n_new} tokens)")


@check("early_exit_greedy")
def early_exit_greedy(out, ref):
    _greedy_same(out, "early exit")


@check("perfect_assistant[*]")
def perfect_assistant(out, ref):
    equal(_arr(out["second"], np.int64).tolist(), _arr(out["first"], np.int64).tolist(),
          what="a second call with the same (self-)assistant gives the same greedy tokens")
    equal(len(_arr(out["first"])), int(out["length"]), what="length")


@check("hopeless_assistant[heuristic]")
def hopeless_heuristic(out, ref):
    # all-rejected steps lower the number of guesses by 1 each: 5 -> 4 -> 3 -> 2 -> 1, then 1 again with a floor of 1
    # or 0 without one (nothing a solver sees states the floor); the last step has no room for a guess, and "all
    # guesses correct" over zero guesses may be read either way (+2, -1 down to the floor, or no update), so every
    # value from 0 to 3 is accepted; a schedule that did not shrink (5 or more) or went negative is not
    expect(0 <= int(out["n_after"]) <= 3, f"guesses after all-rejected steps: {out['n_after']} (want 0 to 3)")


@check("hopeless_assistant[constant]")
def hopeless_constant(out, ref):
    equal(int(out["n_after"]), 5, what="constant schedule keeps the number of guesses")


# ---------------------------------------------------------------- sampling


def _steps_stats(alpha, gamma):
    ks = np.arange(gamma + 1)
    probs = np.where(ks < gamma, alpha ** ks * (1 - alpha), alpha ** gamma)
    tokens = ks + 1
    mean = float((probs * tokens).sum())
    var = float((probs * tokens ** 2).sum()) - mean ** 2
    return mean, var


def _same_distribution_as(out, target, what):
    counts = _arr(out["counts"])
    equal(int(counts.sum()), int(out["n_tokens"]), what=f"{what}: counted tokens")
    stat, dof = _chi_square(counts, target)
    expect(stat <= CHI2_CRIT[dof], f"{what}: sampled token frequencies {counts.tolist()} do not follow "
           f"{np.round(target, 4).tolist()} (chi-square {stat:.1f} > {CHI2_CRIT[dof]} with {dof} dof)")


@check("speculative_sampling[*]")
def speculative_sampling(out, ref):
    _same_distribution(out, "speculative sampling")
    _tokens_per_call(out, _arr(out["p"]))


@check("ensemble_sampling")
def ensemble_sampling(out, ref):
    # `assistant_ensemble_weight` doc (GenerationConfig) and `_speculative_sampling` docstring: the verifier
    # accepts against v = w p + (1 - w) q; Algorithm 1 with v in place of p outputs v, at rate sum min(v, q)
    w, p, q = float(out["w"]), _arr(out["p"]), _arr(out["q"])
    v = w * p + (1 - w) * q
    _same_distribution_as(out, v, "ensemble verification")
    _tokens_per_call(out, v)


def _tokens_per_call(out, p):
    equal(int(out["n_tokens"]), int(out["max_new"]), what="generated length")
    q = _arr(out["q"])
    alpha = float(np.minimum(p, q).sum())
    gamma = int(out["gamma"])
    mean, var = _steps_stats(alpha, gamma)
    calls = int(out["target_calls"])
    got = int(out["n_tokens"]) / calls
    tol = SIGMAS * np.sqrt(var / calls) + gamma / calls
    expect(abs(got - mean) <= tol, f"tokens per target call {got:.3f}, but the acceptance rate alpha = {alpha:.3f} "
           f"with {gamma} guesses gives {mean:.3f} (+- {tol:.3f})")


@check("markov_sampling")
def markov_sampling(out, ref):
    from scipy.stats import chi2

    counts, p = _arr(out["transitions"]), _arr(out["p"])
    total, dof = 0.0, 0
    for row in range(p.shape[0]):
        if counts[row].sum() < 10:
            continue
        stat, d = _chi_square(counts[row], p[row])
        total, dof = total + stat, dof + d
    expect(dof >= 6, f"too few visited states: {counts.tolist()}")
    crit = float(chi2.ppf(1 - 1e-4, dof))
    expect(total <= crit, f"transition counts {counts.tolist()} do not follow the target's rows "
           f"{np.round(p, 3).tolist()} (chi-square {total:.1f} > {crit:.1f} with {dof} dof)")


@check("lookup_sampling")
def lookup_sampling(out, ref):
    _same_distribution(out, "prompt lookup sampling")


# ---------------------------------------------------------------- prompt lookup rules, outputs, encoder-decoder


@check("lookup_rules")
def lookup_rules(out, ref):
    # eos (`eos_token_id` arg of PromptLookupCandidateGenerator): no candidate after the eos; the eos itself may be
    # kept or dropped (nothing decides which), so both [8] and [8, 3] are accepted after the 8-token prompt
    got = _arr(out["eos_cut"], np.int64).tolist()
    expect(got in ([5, 2, 8, 3, 6, 1, 5, 2, 8], [5, 2, 8, 3, 6, 1, 5, 2, 8, 3]),
           f"candidates must stop at the eos token 3: got {got}")


@check("greedy_hidden_states")
def greedy_hidden_states(out, ref):
    # GenerateDecoderOnlyOutput.hidden_states doc: one element per generated token (as plain greedy gives them)
    _greedy_same(out, "output_hidden_states")
    equal(int(out["assisted_hidden_len"]), int(out["plain_hidden_len"]),
          what="hidden_states: one entry per generated token")
    # shapes only: the release's split of the first verification step slices its per-token entries from the
    # start of that forward's output (`_split_model_outputs`, unmasked), so their values are not plain greedy's
    equal(_arr(out["assisted_hidden"]).shape, _arr(out["plain_hidden"]).shape, what="hidden_states joined: shape")


@check("encoder_decoder_greedy")
def encoder_decoder_greedy(out, ref):
    _greedy_same(out, "encoder-decoder")
    equal(_arr(out["assisted_encoder_hidden_states"]).shape, _arr(out["plain_encoder_hidden_states"]).shape,
          what="encoder_hidden_states: shape")
    close(out["assisted_encoder_hidden_states"], out["plain_encoder_hidden_states"], rtol=1e-6, atol=1e-8,
          what="encoder_hidden_states")
    equal(int(out["assisted_decoder_hidden_states_len"]), int(out["plain_decoder_hidden_states_len"]),
          what="decoder_hidden_states: one entry per generated token")


@check("recurrent_greedy")
def recurrent_greedy(out, ref):
    # paper.md "Greedy decoding": identical to the target's greedy output, whatever the model's cache holds
    _greedy_same(out, "recurrent (Mamba) target")
