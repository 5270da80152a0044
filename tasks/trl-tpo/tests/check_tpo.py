"""Trusted checks for trl-tpo/1 (never enter the sandbox).

The probe computes the token log-likelihoods of every completion straight from the untrained model's logits;
the checks rebuild the TPO / TPO-L objective of paper.md from them and compare it with the loss the trainer
reports. How the NLL of the gold responses is averaged over a batch (over all gold tokens, per response then
over responses, or summed per response) is not decided by the paper, so every one of these readings is
accepted; the training runs use one-token gold responses, where the readings coincide."""

from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, expect

# The model is float64, but transformers' Trainer reports losses through float32 in places, and whether the loss
# itself is computed in the model's dtype or in float32 is not decided: float32-compatible tolerances.
LOSS_RTOL = 1e-5
METRIC_RTOL = 1e-5


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def _per_sequence(out, key):
    toks = np.asarray(out[f"tok_logps_{key}"], dtype=np.float64)
    lens = np.asarray(out[f"len_{key}"], dtype=np.int64)
    return np.split(toks, np.cumsum(lens)[:-1]), lens


def _preference_term(out, ref):
    """Mean over the batch of the preference loss of paper.md (and of the config's hinge / IPO forms)."""
    beta, gamma, eps = float(ref["beta"]), float(ref["gamma"]), float(ref["smoothing"])
    chosen, lc = _per_sequence(out, "chosen")
    rejected, lr = _per_sequence(out, "rejected")
    s_c = np.array([t.sum() for t in chosen])
    s_r = np.array([t.sum() for t in rejected])
    kind = ref["loss_type"]
    if kind in ("tpo-l", "ipo"):  # length-normalised log-likelihoods
        s_c, s_r = s_c / lc, s_r / lr
    delta = s_c - s_r
    if kind == "sigmoid":
        z = beta * delta
        per = -(1 - eps) * _log_sigmoid(z) - eps * _log_sigmoid(-z)
    elif kind == "tpo-l":
        z = beta * delta - gamma
        per = -(1 - eps) * _log_sigmoid(z) - eps * _log_sigmoid(-z)
    elif kind == "hinge":
        per = np.maximum(0.0, 1.0 - beta * delta)
    elif kind == "ipo":
        per = (delta - 1.0 / (2.0 * beta)) ** 2
    else:
        raise AssertionError(kind)
    return per.mean(), beta * s_c, beta * s_r


def _nll_readings(out):
    gold, _lens = _per_sequence(out, "reference")
    every = np.concatenate(gold)
    return {
        "mean over gold tokens": -every.mean(),
        "mean of per-response means": -np.mean([t.mean() for t in gold]),
        "mean of per-response sums": -np.mean([t.sum() for t in gold]),
    }


@check("loss_at_start[*]")
def loss_from_the_equations(out, ref):
    pref, r_c, r_r = _preference_term(out, ref)
    alpha = float(ref["alpha"])
    loss = float(out["eval_loss"])
    candidates = {name: pref + alpha * nll for name, nll in _nll_readings(out).items()}
    ok = [name for name, v in candidates.items() if math.isclose(loss, v, rel_tol=LOSS_RTOL, abs_tol=1e-9)]
    expect(ok, f"loss {loss!r} is none of the TPO objectives {candidates!r}")
    if ref["loss_type"] != "ipo":
        # implicit rewards beta * log pi (TPO-L: length-normalised), their margin and the preference accuracy
        close(out["rewards/chosen"], r_c.mean(), rtol=METRIC_RTOL, atol=1e-9)
        close(out["rewards/rejected"], r_r.mean(), rtol=METRIC_RTOL, atol=1e-9)
        # a difference of two rewards: float32 rounding is relative to the rewards, not to the margin
        close(out["rewards/margins"], (r_c - r_r).mean(), rtol=METRIC_RTOL, atol=METRIC_RTOL)
        close(out["rewards/accuracies"], float((r_c > r_r).mean()), rtol=1e-6)  # logged through float32
    if ref["loss_type"] in ("sigmoid", "hinge"):
        chosen, _ = _per_sequence(out, "chosen")
        rejected, _ = _per_sequence(out, "rejected")
        close(out["logps/chosen"], np.mean([t.sum() for t in chosen]), rtol=METRIC_RTOL, atol=1e-9)
        close(out["logps/rejected"], np.mean([t.sum() for t in rejected]), rtol=METRIC_RTOL, atol=1e-9)
    # Metrics the paper does not name (DPO/CPO log them, but nothing asks TPO to): compared with the release only
    # when the trainer logs them.
    for key in ("logits/chosen", "logits/rejected"):
        if out.get(key) is not None:
            close(out[key], ref[key], rtol=METRIC_RTOL, atol=1e-9, what=key)
    if out.get("mean_token_accuracy") is not None:
        # over the chosen completions (as DPO logs it) or, when they are in the batch, the gold ones (the
        # supervised target): which completions it covers is not decided either
        top1 = {k: np.asarray(out[f"tok_top1_{k}"], dtype=np.float64) for k in ("chosen", "reference")}
        acc = [top1["chosen"].mean()] + ([top1["reference"].mean()] if float(ref["alpha"]) > 0 else [])
        value = float(out["mean_token_accuracy"])
        expect(any(math.isclose(value, v, rel_tol=METRIC_RTOL) for v in acc),
               f"mean_token_accuracy {value} is none of {acc}")
    if out.get("entropy") is None:
        return
    # Mean predictive entropy over the completion tokens of the batch; whether the gold responses count
    # is not decided, so both readings are accepted.
    ent = {k: np.asarray(out[f"tok_entropy_{k}"], dtype=np.float64) for k in ("chosen", "rejected", "reference")}
    readings = [np.concatenate([ent["chosen"], ent["rejected"]]).mean(),
                np.concatenate([ent["chosen"], ent["rejected"], ent["reference"]]).mean()]
    value = float(out["entropy"])
    expect(any(math.isclose(value, v, rel_tol=METRIC_RTOL) for v in readings), f"entropy {value} is none of {readings}")


# preferred == dispreferred, alpha = 0, beta = 0.5, gamma = 0.5: the gap is 0, so
#   sigmoid: -log sigma(0) = log 2 = 0.6931471805599453
#   hinge:   relu(1 - 0) = 1
#   ipo:     (0 - 1/(2*0.5))^2 = 1
#   tpo-l:   -log sigma(0 - 0.5) = log(1 + e^0.5) = 0.9740769841801067
EQUAL_PAIR_HAND = {"sigmoid": 0.6931471805599453, "hinge": 1.0, "ipo": 1.0, "tpo_l": 0.9740769841801067}


def _equal_pair(kind):
    def fn(out, ref):
        close(out["eval_loss"], EQUAL_PAIR_HAND[kind], rtol=1e-6)  # float32 loss computation accepted
        close(out["rewards/margins"], 0.0, atol=1e-6)
    return fn


for _kind in EQUAL_PAIR_HAND:
    check(f"equal_pair[{_kind}]")(_equal_pair(_kind))


@check("training_steps*")
def training_decreases_the_objective(out, ref):
    losses = np.asarray(out["losses"], dtype=np.float64)
    expect(np.all(np.isfinite(losses)), "non-finite loss")
    expect(losses[-1] < losses[0], f"the objective did not decrease over the steps: {losses}")


@check("training_steps*")
def tokens_seen(out, ref):
    # Cumulative count of the (unpadded) tokens trained on, one full batch per step; whether the gold sequences
    # count is not decided, so both readings are accepted.
    seq = {k: int(out[f"seq_tokens.{k}"]) for k in ("chosen", "rejected", "reference")}
    n = np.asarray(out["num_tokens"], dtype=np.float64)
    steps = np.arange(1, len(n) + 1)
    readings = [steps * (seq["chosen"] + seq["rejected"]), steps * (seq["chosen"] + seq["rejected"] + seq["reference"])]
    expect(any(np.array_equal(n, r) for r in readings), f"num_tokens {n} is none of {readings}")


@check("training_steps[*]")
def margins_grow(out, ref):
    m = np.asarray(out["margins"], dtype=np.float64)
    expect(m[-1] > m[0], f"the preference margin did not grow: {m}")


@check("training_steps_alpha0")
def gold_ignored_without_nll(out, ref):
    close(out["params"], out["params_other_gold"], rtol=1e-12, atol=1e-14)


@check("extract_prompt_at_space")
def extract_prompt_space(out, ref):
    # The longest common prefix of "b c d" and "b c e f" is "b c "; the space may stay with the prompt or move to
    # the completions: both readings split the strings at the same word boundary.
    got = (out["prompt"], out["chosen"], out["rejected"])
    expect(got in {("b c ", "d", "e f"), ("b c", " d", " e f")}, f"extract_prompt gave {got!r}")
