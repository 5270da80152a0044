"""Trusted checks for alpacaeval-lc/1: hand values of the win rates and scoring rules, and the length-controlled
win rate judged by meaning (identity, Eq. (3) from the stored coefficients, agreement with the reference's fit
within tolerances that accept every correct fit of the GLM). Readings nothing decides are all accepted: the
standard error with or without the n-1 correction, a length feature of either sign or standardised with either
standard deviation, win rates from stored weights (and the generalised win rate) as a fraction or in percent, the
matrix in either orientation, either meaning of `logloss_continuous`'s `true_prob`.
"""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, expect

HARD = [
    [2, 2, 1, 1.5, 0, 2, 1, 2],
    [1, 1, 1, 2],
    [2.0, 2.0, 2.0],
    [0, 0, 1.5, 2, 1],
]
SOFT = [
    [1.9, 1.2, 1.75, 1.05, 1.6, 1.35, 2.0, 1.0],
    [1.51, 1.49, 1.8, 1.1, 1.97],
]


def _sub(out, prefix):
    """The flattened outputs under `prefix.` as a dict keyed by the rest of the key."""
    return {k[len(prefix) + 1:]: v for k, v in out.items() if k.startswith(prefix + ".") and "#" not in k}


def _list(out, prefix):
    n = int(out[prefix]["n"]) if isinstance(out.get(prefix), dict) and "n" in out[prefix] else None
    items = _sub(out, prefix)
    keys = sorted(int(k) for k in items if k.isdigit())
    expect(n is None or len(keys) == n, f"{prefix}: list length")
    return [items[str(k)] for k in keys]


def _either_sem(got, values, what):
    v = np.asarray(values, dtype=float)
    n = len(v)
    ok = [v.std(ddof=1) / np.sqrt(n) * 100 if n > 1 else np.nan, v.std(ddof=0) / np.sqrt(n) * 100]
    expect(any(np.isclose(got, w, rtol=1e-9, atol=1e-9) for w in ok), f"{what}: {got} is no standard error of {v}")


def _frac_or_pct(got, frac, atol, what):
    expect(np.isclose(got, frac, atol=atol) or np.isclose(got, frac * 100, atol=atol * 100),
           f"{what}: {got} is neither {frac} nor {frac * 100}")


@check("raw_winrate[*]")
def raw_winrate(out, ref):
    # win rate = mean of (preference - 1) with 0 read as 1.5 (a tie), in percent
    for where in ("frame", "records", "pairwise"):
        wr = ref[f"{where}.win_rate"]
        prefs = None
        for p in HARD + SOFT:
            vals = np.array([1.5 if x == 0 else x for x in p], dtype=float) - 1
            if np.isclose(vals.mean() * 100, wr) and len(vals) == ref[f"{where}.n_total"]:
                prefs = vals
        expect(prefs is not None, "internal: case not found")
        close(out[f"{where}.win_rate"], prefs.mean() * 100, rtol=1e-12, what=f"{where}: win rate")
        _either_sem(out[f"{where}.standard_error"], prefs, f"{where}: standard error")


@check("raw_winrate[0]")
def raw_winrate_hand(out, ref):
    # [2, 2, 1, 1.5, 0, 2, 1, 2]: 4 wins, 2 losses, 2 ties -> (4 + 2/2) / 8 = 62.5%
    close(out["frame.win_rate"], 62.5, rtol=1e-12, what="win rate")
    close(out["frame.n_wins"], 4, what="wins")
    close(out["frame.n_wins_base"], 2, what="losses")
    close(out["frame.n_draws"], 2, what="ties")
    close(out["frame.discrete_win_rate"], 62.5, rtol=1e-12, what="discrete win rate")


@check("raw_winrate[4]")
def soft_winrate_hand(out, ref):
    # mean of [.9, .2, .75, .05, .6, .35, 1, 0] = 3.85 / 8 = 48.125%; rounded: 4 wins (1.9 1.75 1.6 2), 4 losses -> 50%
    close(out["frame.win_rate"], 48.125, rtol=1e-12, what="win rate")
    close(out["frame.discrete_win_rate"], 50.0, rtol=1e-12, what="discrete win rate")


@check("scoring_rules_registry")
def scoring_rules(out, ref):
    # pred [1, 2, 1.5, 2, 1, 0] vs target [1, 1, 1.5, 2, 2, 1.5]: 0 is a tie (1.5); 4 of 6 equal
    for name in ("zero_one", "absolute", "squared"):
        close(out[f"{name}.score"], 4 / 6, rtol=1e-12, what=f"{name}: score")
        close(out[f"{name}.error"], 2 / 6, rtol=1e-12, what=f"{name}: error = 1 - score")
        per_item = np.array([1, 0, 1, 1, 0, 1], dtype=float)
        _either_sem(out[f"{name}.sem"] * 100, per_item, f"{name}: sem")
        # generalized_win_rate: its docstring gives no scale; a fraction or percent (the head-to-head win rate)
        _frac_or_pct(out[f"{name}.win_rate"], ref[f"{name}.win_rate"] / 100, 1e-12, f"{name}: generalized win rate")
    # soft [1.2, 1.9, 1.5, 1.7, 1.4, 1.55] vs target: |d| = .2 .9 0 .3 .6 .05 -> MAE 2.05/6; squared .04 .81 0 .09 .36
    # .0025 -> 1.3025/6
    close(out["absolute.score_soft"], 1 - 2.05 / 6, rtol=1e-12, what="absolute: 1 - MAE")
    close(out["squared.score_soft"], 1 - 1.3025 / 6, rtol=1e-12, what="squared: 1 - MSE")


@check("bayes_estimators")
def bayes(out, ref):
    close(out["zero_one.clear_mode"], 2.0, what="zero-one: the mode")
    close(out["absolute.clear_mode"], 2.0, what="absolute: median (= mode here)")
    close(out["squared.clear_mode"], 1.6, rtol=1e-12, what="squared: the mean")
    close(out["absolute.soft"], 1.7, rtol=1e-12, what="absolute: the median")
    close(out["squared.soft"], 1.58, rtol=1e-12, what="squared: the mean")


@check("extreme_changes")
def extreme(out, ref):
    # prev 20: too small below min(20 - 20/4, 20 - 10) = 10, too large above max(20 + 80/4, 30) = 40
    got = [bool(x) for x in _list(out, "default")[:6]]
    expect(got == [False, True, False, False, True, False], f"prev 20: {got}")


@check("logloss_values")
def logloss(out, ref):
    y = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    p = np.array([0.9, 0.2, 0.5, 0.03, 0.99])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    prob = np.array([0.7, 0.1, 0.5, 0.3, 0.95])
    ll = y * np.log(p) + (1 - y) * np.log(1 - p)
    close(out["plain"], -ll.mean(), rtol=1e-12, what="log loss")
    ok = [-(ll * w).mean(), -(ll * w).sum() / w.sum()]
    expect(any(np.isclose(out["weighted"], v, rtol=1e-12) for v in ok), f"weighted log loss {out['weighted']}")
    # logloss_continuous: what `true_prob` holds is set by its (masked) caller, so both readings are accepted:
    # the probability of the row's own label y_true (the release) or the probability of label 1 (y_true unused)
    ok, ok_w = [], []
    for t in (np.where(y == 1, prob, 1 - prob), prob):
        lc = t * np.log(p) + (1 - t) * np.log(1 - p)
        ok.append(-lc.mean())
        ok_w += [-(lc * w).mean(), -(lc * w).sum() / w.sum()]
    expect(any(np.isclose(out["continuous"], v, rtol=1e-12) for v in ok), f"continuous log loss {out['continuous']}")
    expect(any(np.isclose(out["continuous_weighted"], v, rtol=1e-12) for v in ok_w), "weighted continuous log loss")


@check("featurized[*]")
def featurized(out, ref):
    key = "np.tanh(std_delta_len)"
    got, want = np.abs(out[f"train.{key}"]), np.abs(ref[f"train.{key}"])
    n = len(want)
    # the same feature with the population standard deviation: atanh scaled by sqrt(n / (n - 1))
    alt = np.tanh(np.arctanh(np.clip(want, 0, 1 - 1e-15)) * np.sqrt(n / (n - 1)))
    expect(np.allclose(got, want, rtol=1e-9, atol=1e-12) or np.allclose(got, alt, rtol=1e-7, atol=1e-9),
           "length feature: not tanh of the standardised length difference")
    close(out[f"test.{key}"], 0.0, atol=0, what="test design: length difference set to zero")
    expect(bool(np.all(out["test.not_gamed_baseline.astype(float)"] == 1.0)), "test design: model term is 1")


@check("length_controlled[*]")
def lc_by_meaning(out, ref):
    lc = out["metrics.length_controlled_winrate"]
    expect(0 <= lc <= 100, "bounded")
    close(lc, out["glm_preference_mean"], rtol=1e-9, what="LC = mean GLM preference at zero length, in percent")
    close(out["lc_from_saved_weights"], lc, rtol=1e-9, atol=1e-7, what="Eq. (3) from the stored coefficients")
    gp = out["glm_preference"]
    n = len(gp)
    ok = [out["glm_preference_sem"], out["glm_preference_sem"] * np.sqrt((n - 1) / n)]
    expect(any(np.isclose(out["metrics.lc_standard_error"], v, rtol=1e-9) for v in ok), "LC standard error")
    rw, cw = _sub(ref, "weights.values.model_x"), _sub(out, "weights.values.model_x")
    for k in rw:
        if k.startswith("np.tanh"):
            close(abs(cw[k]), abs(rw[k]), atol=0.05, what=f"|{k}|")
        else:
            close(cw[k], rw[k], atol=0.02, what=f"weight {k}")


@check("identity_baseline_against_itself")
def identity(out, ref):
    close(out["lc"], 50.0, atol=1e-12, what="identity: the baseline against itself")
    close(out["glm_preference"], 0.5, atol=1e-12, what="every prediction is 1/2")
    for k, v in _sub(out, "weights.values.base").items():
        close(v, 0.0, atol=1e-12, what=f"stored coefficient {k}")


@check("weights_cache_and_predicted_winrates")
def cache(out, ref):
    rows = sorted(_list(out, "weights.rows"))
    expect(rows == ["alpha", "base", "beta"], f"stored rows {rows}")
    expect(out["weights.n_rows"] == 3, "one row per model (a refit replaces the row)")
    expect(sorted(_list(out, "weights_after.rows")) == ["alpha", "base", "beta", "gamma"], "gamma stored")
    # the length coefficient: either sign (the release's length difference is baseline minus model, Eq. (2)'s is
    # model minus baseline) and either standard deviation, hence a looser tolerance on its magnitude
    for where, models in (("weights", ("alpha", "beta")), ("weights_after", ("alpha", "beta", "gamma"))):
        for m in models:
            got = _sub(out, f"{where}.values.{m}")
            for k, v in _sub(ref, f"{where}.values.{m}").items():
                expect(k in got, f"{where}: {m}: no stored {k}")
                if k.startswith("np.tanh"):
                    close(abs(got[k]), abs(v), atol=0.05, what=f"{where}: {m}: |{k}|")
                else:
                    close(got[k], v, atol=0.02, what=f"{where}: {m}: {k} (alpha: the refit's)")
    _frac_or_pct(out["pred_alpha_vs_base"], out["lc_alpha"] / 100, 1e-9, "stored weights reproduce alpha's LC")
    _frac_or_pct(out["pred_alpha_vs_alpha"], 0.5, 1e-12, "identity from stored weights")
    _frac_or_pct(out["pred_beta_vs_alpha"], ref["pred_beta_vs_alpha"], 5e-4, "beta vs alpha")
    _frac_or_pct(out["pred_gamma_vs_alpha"], ref["pred_gamma_vs_alpha"], 5e-4, "gamma vs alpha (baseline=)")
    m, r = np.asarray(out["matrix_percent"], float), np.asarray(ref["matrix_percent"], float)
    ok = any(np.allclose(c, t, atol=atol) for c in (m, m.T) for t, atol in ((r, 0.05), (r / 100, 5e-4)))
    expect(ok, "matrix of predicted win rates")
    s = m + m.T
    expect(np.allclose(s, s[0, 0]), "symmetry: winrate(a, b) + winrate(b, a) is constant")


@check("cross_validated[*]")
def cross_validated(out, ref):
    close(out["glm_mean"], out["lc"], rtol=1e-9, what="LC = mean GLM preference")
    close(out["lc"], out["lc_mle"], atol=0.5, what="cross-validated fit close to the unregularised one")
    close(out["lc"], ref["lc"], atol=0.5, what="cross-validated LC")
    close(out["win_rate"], ref["win_rate"], rtol=1e-12, what="raw win rate")


@check("fit_cv_soft")
def fit_cv(out, ref):
    close(out["proba"], ref["proba"], atol=0.02, what="cross-validated soft-label fit")


@check("not_inplace_and_records")
def records(out, ref):
    close(out["lc_records_minus_frame"], 0.0, atol=1e-9, what="list of records = frame")


@check("random_mode")
def random_mode(out, ref):
    # _random_mode's docstring: a favourite mode among tied modes is returned; a favourite that is not a mode is not
    close(out["favorite"], -1.0, what="favourite -1 among three tied modes")
    close(out["favorite_first"], 1.0, what="favourite 1 among three tied modes")
    close(out["favorite_last"], 2.0, what="favourite 2 among three tied modes")
    close(out["favorite_not_a_mode"], 2.0, what="the only mode wins over a favourite that is not a mode")


@check("fit_mle_weighted")
def weighted_fit(out, ref):
    # weight 2 vs 0.5 = 4 copies vs 1: the weighted fit equals the fit on replicated rows
    close(out["proba"], out["proba_replicated_rows"], atol=2e-3, what="sample weights = replicated rows")


@check("length_controlled_missing_preferences")
def missing_preferences(out, ref):
    # the coefficients are fitted on the rated rows only; LC may average over every instruction or the rated ones
    rw, cw = _sub(ref, "weights.values.model_x"), _sub(out, "weights.values.model_x")
    for k in rw:
        expect(k in cw, f"no stored {k}")
        if k.startswith("np.tanh"):
            close(abs(cw[k]), abs(rw[k]), atol=0.05, what=f"|{k}|")
        else:
            close(cw[k], rw[k], atol=0.02, what=f"weight {k}")
    ok = [ref["lc_all_rows"], ref["lc_rated_rows"]]
    expect(any(abs(out["lc"] - v) <= 0.02 for v in ok), f"LC {out['lc']} vs {ok}")
    close(out["raw.win_rate"], ref["raw.win_rate"], rtol=1e-9, what="raw win rate over the rated rows")


@check("auto_weights_dir")
def auto_dir(out, ref):
    expect(bool(out["saved"]), "weights saved under weights/<annotator>/<glm_name>/ beside the module")
