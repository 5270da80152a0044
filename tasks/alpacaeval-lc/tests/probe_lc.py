"""Probe of alpacaeval-lc/1: the length-controlled win rate of alpaca-eval through its public entry points (the
`metrics` registry that `alpaca_eval.evaluate` resolves `fn_metric` from, `get_length_controlled_winrate`,
`predict_winrate`, the GLM helpers, `get_winrate` and the scoring rules). Runs in the sandbox; emits outputs only.

No hub, no network: the two precomputed tables the package downloads from the hub (the instruction difficulties,
`instruction_difficulty.csv`, and the table of precomputed annotations that also carries them) are written here
from a seeded generator and served by a stand-in for `hf_hub_download`: the file named
`instruction_difficulty.csv` gets the difficulty table, any other name gets the annotation table, which holds the
same difficulties (the first block of rows lists every instruction once, in order). Both readings agree.

Annotation frames are built in code: `index` is the instruction id (rows shuffled, so it is not the row number),
`output_1`/`generator_1` the baseline's, `output_2`/`generator_2` the evaluated model's, `preference` in [1, 2]
(1 baseline wins, 2 model wins, 1.5 or 0 a tie). Every fit that is compared by value uses the package's own
no-cross-validation branch (`n_splits=0`) with a regularisation so weak (C=1e6) that any correct fit is the
maximum-likelihood one; the cross-validated fits are judged by the checks with loose tolerances.
"""

from __future__ import annotations

import os
import tempfile

# the sandbox's uid has no passwd entry (alpaca_eval.constants asks getpass for the user name); no hub access
os.environ.setdefault("USER", "probe")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="lc_hf_"))


def _pkg_resources_shim():
    """alpaca_eval.utils imports pkg_resources (setuptools < 81) at module level; the harness's setuptools no
    longer ships it and the task environment never installs setuptools. The two functions it uses, from the
    standard library and packaging."""
    try:
        import pkg_resources  # noqa: F401
        return
    except ImportError:
        pass
    import importlib.metadata
    import sys
    import types

    from packaging.version import parse

    shim = types.ModuleType("pkg_resources")
    shim.parse_version = parse
    shim.get_distribution = lambda name: types.SimpleNamespace(version=importlib.metadata.version(name))
    sys.modules["pkg_resources"] = shim


_pkg_resources_shim()

import alpaca_eval.metrics.glm_winrate as glm_mod  # noqa: E402
import huggingface_hub  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from alpaca_eval import metrics  # noqa: E402
from alpaca_eval.metrics import glm_winrate, helpers, winrate  # noqa: E402
from lmrbench_probe import case  # noqa: E402

N_INSTR = 160
FORMULA_FULL = "np.tanh(std_delta_len) + instruction_difficulty + not_gamed_baseline.astype(float) - 1"
FORMULA_MIN = "np.tanh(std_delta_len) + not_gamed_baseline.astype(float) - 1"
MLE = {"n_splits": 0, "C": 1e6}


def _difficulties() -> np.ndarray:
    rng = np.random.default_rng(1234)
    return np.round(rng.normal(0.0, 1.0, size=N_INSTR), 3)


_HUB_DIR = tempfile.mkdtemp(prefix="lc_hub_")


def _write_hub_tables() -> tuple[str, str]:
    diff = _difficulties()
    ids = np.arange(N_INSTR)
    rows = []
    rng = np.random.default_rng(99)
    for model in ("gamed_verbose", "gamed_concise"):
        for i in ids:
            rows.append({"model": model, "index": int(i), "preference": float(np.round(rng.uniform(0.05, 0.95), 4)),
                         "std_delta_len": float(np.round(rng.normal(0, 1), 4)),
                         "instruction_difficulty": float(diff[i]), "not_gamed_baseline": False})
    gamed = os.path.join(_HUB_DIR, "df_gamed.csv")
    pd.DataFrame(rows).to_csv(gamed, index=False)
    difficulty = os.path.join(_HUB_DIR, "instruction_difficulty.csv")
    pd.DataFrame({"instruction_difficulty": diff}, index=pd.Index(ids, name="index")).to_csv(difficulty)
    return gamed, difficulty


_GAMED, _DIFFICULTY = _write_hub_tables()


def _fake_hub_download(*args, **kwargs):
    filename = kwargs.get("filename")
    if filename is None:
        filename = args[1] if len(args) > 1 else ""
    return _DIFFICULTY if str(filename).endswith("instruction_difficulty.csv") else _GAMED


glm_mod.hf_hub_download = _fake_hub_download
huggingface_hub.hf_hub_download = _fake_hub_download
try:
    import huggingface_hub.file_download as _fd

    _fd.hf_hub_download = _fake_hub_download
except Exception:  # pragma: no cover - layout of huggingface_hub
    pass


def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def annotations(seed: int, theta: float, phi: float, psi: float, *, soft: bool = True, model: str = "model_x",
                baseline: str = "base", n: int = N_INSTR, annotator: str = "judge") -> pd.DataFrame:
    """An annotation frame whose preferences follow the GLM (plus noise), rows shuffled."""
    rng = np.random.default_rng(seed)
    diff = _difficulties()
    ids = rng.permutation(N_INSTR)[:n]
    len_b = rng.integers(150, 1500, size=n)
    len_m = np.maximum(5, len_b + rng.integers(-900, 1400, size=n))
    delta = (len_m - len_b).astype(float)
    z = theta + phi * np.tanh(delta / delta.std()) + psi * diff[ids] + rng.normal(0, 0.6, size=n)
    p = _logistic(z)
    if soft:
        pref = 1.0 + np.round(np.clip(p, 0.002, 0.998), 4)
    else:
        pref = np.where(rng.uniform(size=n) < p, 2.0, 1.0)
        pref[rng.uniform(size=n) < 0.08] = 1.5
        pref[rng.uniform(size=n) < 0.05] = 0.0
    return pd.DataFrame({
        "instruction": [f"instruction {i}" for i in ids],
        "index": ids.astype(int),
        "output_1": ["b" * int(k) for k in len_b],
        "output_2": ["m" * int(k) for k in len_m],
        "generator_1": baseline,
        "generator_2": model,
        "annotator": annotator,
        "preference": pref,
    })


def _metrics(out: dict) -> dict:
    keys = ["win_rate", "standard_error", "n_wins", "n_wins_base", "n_draws", "n_total", "discrete_win_rate",
            "length_controlled_winrate", "lc_standard_error"]
    return {k: float(out[k]) for k in keys if k in out}


def _weights_path(root: str, glm_name: str, baseline: str) -> str | None:
    """Where the weights file of an explicit `save_weights_dir` is: `DIR/<glm_name>/baseline_<b>.csv` or
    `DIR/baseline_<b>.csv`. The docstring names the folder of "auto" (`weights / annotator / glm_name`), not
    whether an explicit directory gets the `glm_name` sub-folder too, so either is accepted."""
    for path in (os.path.join(root, glm_name, f"baseline_{baseline}.csv"),
                 os.path.join(root, f"baseline_{baseline}.csv")):
        if os.path.exists(path):
            return path
    return None


def _weights_file(root: str, glm_name: str, baseline: str) -> pd.DataFrame:
    path = _weights_path(root, glm_name, baseline)
    return None if path is None else pd.read_csv(path, index_col=0)


def _weights_out(df: pd.DataFrame | None) -> dict:
    """Always the same keys (a missing file still fails: the reference's coefficient keys are then absent)."""
    if df is None:
        return {"exists": False, "rows": [], "n_rows": 0, "columns": [], "values": {}}
    cols = sorted(str(c) for c in df.columns)
    return {"exists": True, "rows": sorted(str(i) for i in df.index), "n_rows": len(df), "columns": cols,
            "values": {str(r): {c: float(df.loc[r, c]) for c in cols} for r in df.index.unique()}}


# ---------------------------------------------------------------- raw win rates and scoring rules

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


@case(params=range(len(HARD) + len(SOFT)), rtol=1e-9, atol=1e-9, outputs={"*.standard_error": {"compare": "none"}})
def raw_winrate(i):
    prefs = (HARD + SOFT)[i]
    frame = pd.DataFrame({"preference": prefs, "generator_2": "m"})
    out = {"frame": _metrics(metrics.get_winrate(frame)),
           "records": _metrics(winrate.get_winrate(frame.to_dict("records"))),
           "pairwise": _metrics(metrics.pairwise_to_winrate(prefs))}
    return out


@case(rtol=1e-9, atol=1e-9, outputs={"*.standard_error": {"compare": "none"}, "*.sem": {"compare": "none"},
                                     "absolute.win_rate": {"compare": "none"}, "squared.win_rate": {"compare": "none"},
                                     "zero_one.win_rate": {"compare": "none"}})
def scoring_rules_registry():
    pred = [1.0, 2.0, 1.5, 2.0, 1.0, 0]
    target = [1.0, 1.0, 1.5, 2.0, 2.0, 1.5]
    soft = [1.2, 1.9, 1.5, 1.7, 1.4, 1.55]
    out = {"names": sorted(helpers.SCORING_RULES)}
    for name, cls in sorted(metrics.SCORING_RULES.items()):
        rule = cls()
        out[name] = {
            "score": float(rule.score(pred, target)),
            "error": float(rule.error(pred, target)),
            "sem": float(rule.sem(pred, target)),
            "win_rate": float(rule.generalized_win_rate(pred)),
            "head2head": _metrics(rule.describe_head2head(pred)),
        }
        if name != "zero_one":
            out[name]["score_soft"] = float(rule.score(soft, target))
            out[name]["head2head_soft"] = _metrics(rule.describe_head2head(soft))
    return out


@case(rtol=1e-12, atol=1e-12)
def bayes_estimators():
    out = {}
    for name, cls in sorted(helpers.SCORING_RULES.items()):
        rule = cls()
        out[name] = {
            "clear_mode": float(rule.bayes_estimator([1.0, 2.0, 2.0, 2.0, 1.0])),
            "soft": float(rule.bayes_estimator([1.2, 1.9, 1.7, 1.3, 1.8])) if name != "zero_one" else 0.0,
        }
    return out


@case(rtol=0, atol=0)
def random_mode():
    rm = helpers._random_mode
    tie = rm(pd.Series([1.0, 2.0, 3.0, 3.0, 2.0]))
    return {
        "single": float(rm(pd.Series([1.0, 2.0, 1.0]))),
        "tie_in_set": bool(tie in (2.0, 3.0)),
        "favorite": float(rm(pd.Series([1.0, 2.0, -1.0]), favorite_mode=-1.0)),
        "favorite_first": float(rm(pd.Series([1.0, 2.0, -1.0]), favorite_mode=1.0)),
        "favorite_last": float(rm(pd.Series([1.0, 2.0, -1.0]), favorite_mode=2.0)),
        "favorite_not_a_mode": float(rm(pd.Series([1.0, 2.0, 2.0, -1.0]), favorite_mode=-1.0)),
        "available": float(rm(pd.Series([1.0, 2.0, 2.0, 3.0, 3.0]), available_modes=[3.0, 4.0])),
        "with_nan": float(rm(pd.Series([np.nan, np.nan, np.nan, 2.0]))),
        "all_nan_is_nan": bool(np.isnan(rm(pd.Series([np.nan, np.nan])))),
    }


# ---------------------------------------------------------------- GLM helpers

@case(rtol=1e-12, atol=1e-300)
def logistic_values():
    x = np.array([-800.0, -40.0, -2.5, -1.0, 0.0, 0.3, 1.0, 2.5, 40.0, 800.0])
    with np.errstate(over="ignore"):
        y = np.asarray(glm_winrate._logistic(x), dtype=float)
    return {"y": y, "scalar": float(glm_winrate._logistic(0.7))}


EXTREME = [(20, 10), (20, 9.9), (20, 15.1), (20, 14.9), (20, 40.1), (20, 39.9), (50, 37.4), (50, 37.6),
           (50, 62.6), (50, 62.4), (90, 79.9), (90, 80.1), (90, 93), (5, 0), (5, 16), (95, 100)]


@case(rtol=0, atol=0)
def extreme_changes():
    f = glm_winrate.get_is_extreme_changes
    return {
        "default": [bool(f(a, b)) for a, b in EXTREME],
        "abs5_rel2": [bool(f(a, b, abs_diff=5, rel_diff=2)) for a, b in EXTREME],
        "no_min": [bool(f(a, b, min_warn=False)) for a, b in EXTREME],
        "no_max": [bool(f(a, b, max_warn=False)) for a, b in EXTREME],
    }


@case(rtol=1e-12, atol=1e-12, outputs={"*weighted": {"compare": "none"}, "continuous": {"compare": "none"}})
def logloss_values():
    y = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    p = np.array([0.9, 0.2, 0.5, 0.03, 0.99])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    prob = np.array([0.7, 0.1, 0.5, 0.3, 0.95])
    return {
        "plain": float(glm_winrate.logloss(y, p)),
        "weighted": float(glm_winrate.logloss(y, p, sample_weight=w)),
        "soft_targets": float(glm_winrate.logloss(prob, p)),
        "continuous": float(glm_winrate.logloss_continuous(y, p, prob)),
        "continuous_weighted": float(glm_winrate.logloss_continuous(y, p, prob, true_sample_weight=w)),
    }


@case(rtol=1e-12, atol=1e-12)
def design_matrix():
    rng = np.random.default_rng(5)
    train = pd.DataFrame({"a": np.round(rng.normal(size=7), 3), "g": rng.integers(0, 3, size=7),
                          "flag": [True, False, True, True, False, True, False],
                          "preference": np.round(rng.uniform(size=7), 3)})
    test = pd.DataFrame({"a": [0.0, 0.5, -1.0], "g": [2, 0, 1], "flag": [True, True, False]})
    xy, x = glm_winrate.make_dmatrix_for_model(train, test, "np.tanh(a) + g + flag.astype(float) - 1")
    xy2, x2 = glm_winrate.make_dmatrix_for_model(train, test, "a + g", col_y_true="a")
    return {"train_cols": [str(c) for c in xy.columns], "test_cols": [str(c) for c in x.columns],
            "train": xy.to_numpy(dtype=float), "test": x.to_numpy(dtype=float),
            "with_intercept_cols": [str(c) for c in xy2.columns], "with_intercept_test": x2.to_numpy(dtype=float),
            "with_intercept_train": xy2.to_numpy(dtype=float)}


def _featurized_out(df, formula, lam):
    xy, x, sw = glm_winrate._get_featurized_data(df, formula=formula, regularize_to_baseline_lambda=lam)
    cols = sorted(str(c) for c in x.columns)
    return {
        "test_cols": cols,
        "train_cols": sorted(str(c) for c in xy.columns),
        "n_train": len(xy), "n_test": len(x),
        "train": {c: xy[c].to_numpy(dtype=float) for c in sorted(str(c) for c in xy.columns)},
        "test": {c: x[c].to_numpy(dtype=float) for c in cols},
        "sample_weight_is_none": sw is None,
        "sample_weight": np.zeros(1) if sw is None else np.asarray(sw, dtype=float),
    }


@case(params=["full", "minimal", "hard"], rtol=1e-9, atol=1e-9,
      outputs={"train.np.tanh(std_delta_len)": {"compare": "none"}, "sample_weight*": {"compare": "none"}})
def featurized(which):
    if which == "hard":
        df = annotations(11, 0.3, 0.8, 0.4, soft=False, n=60)
    else:
        df = annotations(7, -0.2, 1.1, 0.5, n=50)
    formula = FORMULA_MIN if which == "minimal" else FORMULA_FULL
    return _featurized_out(df, formula, None)


@case(params=["soft", "hard"], rtol=1e-3, atol=2e-4)
def fit_mle(which):
    rng = np.random.default_rng(21)
    n = 120
    x1 = rng.normal(size=n)
    x2 = rng.normal(size=n)
    z = 0.4 + 1.2 * np.tanh(x1) - 0.7 * x2 + rng.normal(0, 0.5, size=n)
    p = np.round(_logistic(z), 4)
    data = pd.DataFrame({"f1": np.tanh(x1), "f2": x2, "one": 1.0, "pref": p})
    test = pd.DataFrame({"f1": [0.0, 0.5, -0.9], "f2": [0.0, -1.0, 2.0], "one": [1.0, 1.0, 1.0]})
    if which == "soft":
        model = glm_winrate.fit_LogisticRegressionCV(data, "pref", is_ytrue_proba=True, n_splits=0, C=1e6)
    else:
        data["pref"] = (data["pref"] > 0.5).astype(float)
        model = glm_winrate.fit_LogisticRegressionCV(data, "pref", is_ytrue_proba=False, n_splits=0, C=1e6)
    return {"proba": np.asarray(model.predict_proba(test)[:, 1], dtype=float),
            "proba_train_mean": float(np.mean(model.predict_proba(data.drop(columns=["pref"]))[:, 1]))}


@case(rtol=1e-3, atol=2e-4)
def fit_mle_weighted():
    """Per-row sample weights: the weighted maximum-likelihood fit (a row of weight 2 counts twice)."""
    rng = np.random.default_rng(23)
    n = 90
    x1 = rng.normal(size=n)
    z = 0.2 - 1.1 * np.tanh(x1) + rng.normal(0, 0.7, size=n)
    data = pd.DataFrame({"f1": np.tanh(x1), "one": 1.0, "pref": np.round(_logistic(z), 4)})
    w = np.where(np.arange(n) % 3 == 0, 2.0, 0.5)
    test = pd.DataFrame({"f1": [0.0, 0.6, -0.7], "one": [1.0, 1.0, 1.0]})
    model = glm_winrate.fit_LogisticRegressionCV(data, "pref", is_ytrue_proba=True, n_splits=0, C=1e6,
                                                 sample_weight=pd.Series(w))
    doubled = pd.concat([data[np.arange(n) % 3 == 0]] * 4 + [data[np.arange(n) % 3 != 0]], axis=0)
    ref = glm_winrate.fit_LogisticRegressionCV(doubled, "pref", is_ytrue_proba=True, n_splits=0, C=1e6)
    return {"proba": np.asarray(model.predict_proba(test)[:, 1], dtype=float),
            "proba_replicated_rows": np.asarray(ref.predict_proba(test)[:, 1], dtype=float)}


@case(rtol=0, atol=0.02, outputs={"raw.*": {"compare": "none"}, "lc*": {"compare": "none"},
                                  "weights.*": {"compare": "none"}})
def length_controlled_missing_preferences():
    """Annotations without a preference (NaN) are left out of the fit."""
    df = annotations(9, 0.4, 1.1, 0.5)
    df.loc[df.index[::9], "preference"] = np.nan
    info = {"formula": FORMULA_FULL, "regularize_to_baseline_lambda": None, "kwargs": dict(MLE)}
    root = tempfile.mkdtemp(prefix="lc_nan_")
    out = metrics.get_length_controlled_winrate(df, glm_info=info, save_weights_dir=root,
                                                is_warn_extreme_changes=False)
    has = df["preference"].notna().to_numpy()
    gp = np.asarray(df["glm_preference"], dtype=float)
    return {"lc": float(out["length_controlled_winrate"]), "lc_all_rows": float(np.nanmean(gp)) * 100,
            "lc_rated_rows": float(np.nanmean(gp[has])) * 100 if len(gp) == len(has) else -1.0,
            "raw": _metrics(out), "weights": _weights_out(_weights_file(root, "length_controlled_v1", "base"))}


@case(rtol=0, atol=0.02, outputs={"baseline_row_max_abs": {"atol": 1e-12}})
def auto_weights_dir():
    """save_weights_dir="auto": weights/<annotator>/<glm_name>/ beside the module (removed afterwards)."""
    import shutil
    from pathlib import Path

    annotator = "probe_judge_7f3a"
    df = annotations(13, 0.2, 0.8, 0.3, annotator=annotator, n=90)
    info = {"formula": FORMULA_FULL, "regularize_to_baseline_lambda": None, "kwargs": dict(MLE)}
    folder = Path(glm_winrate.__file__).parent / "weights" / annotator
    try:
        out = metrics.get_length_controlled_winrate(df, glm_name="length_controlled_noreg", glm_info=info,
                                                    save_weights_dir="auto", is_warn_extreme_changes=False)
        path = folder / "length_controlled_noreg" / "baseline_base.csv"
        w = pd.read_csv(path, index_col=0) if path.exists() else None
        base_max = 0.0 if w is None or "base" not in w.index else float(np.abs(w.loc[["base"]].to_numpy(float)).max())
        return {"lc": float(out["length_controlled_winrate"]), "saved": w is not None,
                "rows_not_baseline": [] if w is None else sorted(str(i) for i in w.index if str(i) != "base"),
                "baseline_row_max_abs": base_max}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        try:
            (folder.parent).rmdir()
        except OSError:
            pass


@case(rtol=1e-9, atol=1e-9, compare="none")
def fit_cv_soft():
    rng = np.random.default_rng(22)
    n = 200
    x1 = rng.normal(size=n)
    z = -0.3 + 1.5 * np.tanh(x1) + rng.normal(0, 0.5, size=n)
    data = pd.DataFrame({"f1": np.tanh(x1), "one": 1.0, "pref": np.round(_logistic(z), 4)})
    test = pd.DataFrame({"f1": [0.0, 0.8], "one": [1.0, 1.0]})
    model = glm_winrate.fit_LogisticRegressionCV(data, "pref", is_ytrue_proba=True)
    return {"proba": np.asarray(model.predict_proba(test)[:, 1], dtype=float)}


# ---------------------------------------------------------------- the length-controlled win rate

LC_CASES = [
    # (data seed, theta, phi, psi, soft, glm formula)
    (1, 0.5, 1.0, 0.6, True, "full"),
    (2, -0.8, 1.6, -0.4, True, "full"),
    (3, 0.1, 0.5, 0.9, True, "minimal"),
    (4, 0.9, 1.2, 0.3, False, "full"),
    (5, -0.4, 2.0, 0.0, True, "full"),
]


@case(params=range(len(LC_CASES)), rtol=0, atol=0.02,
      outputs={"metrics.win_rate": {"atol": 1e-9},
               "metrics.n_*": {"atol": 0}, "metrics.discrete_win_rate": {"atol": 1e-9},
               "metrics.standard_error": {"rtol": 0.01}, "lc_from_saved_weights": {"compare": "none"},
               "metrics.lc_standard_error": {"atol": 0.01}, "glm_preference": {"atol": 2e-3},
               "weights.*": {"compare": "none"}})
def length_controlled(i):
    seed, theta, phi, psi, soft, which = LC_CASES[i]
    df = annotations(seed, theta, phi, psi, soft=soft)
    info = {"formula": FORMULA_MIN if which == "minimal" else FORMULA_FULL,
            "regularize_to_baseline_lambda": None, "kwargs": dict(MLE)}
    root = tempfile.mkdtemp(prefix="lc_w_")
    fn = metrics.get_length_controlled_winrate  # how alpaca_eval.evaluate resolves fn_metric
    out = fn(df, glm_name="my_glm", save_weights_dir=root, glm_info=info, is_warn_extreme_changes=False)
    leaderboard_keys = ["win_rate", "standard_error", "n_wins", "n_wins_base", "n_draws", "n_total",
                        "discrete_win_rate", "length_controlled_winrate", "lc_standard_error"]
    return {"metrics": _metrics(out), "has_leaderboard_keys": all(k in out for k in leaderboard_keys),
            "glm_preference": np.sort(np.asarray(df["glm_preference"], dtype=float)),
            "glm_preference_mean": float(np.mean(df["glm_preference"])) * 100,
            "glm_preference_sem": float(pd.Series(df["glm_preference"]).sem()) * 100,
            "weights": _weights_out(_weights_file(root, "my_glm", "base")),
            "lc_from_saved_weights": _lc_from_weights(_weights_file(root, "my_glm", "base"), "model_x", df)}


def _lc_from_weights(weights, model, df):
    """Eq. (3) from the stored coefficients (absent terms count as zero), over the frame's instructions."""
    if weights is None or model not in weights.index:
        return -1.0
    row = weights.loc[model]
    if isinstance(row, pd.DataFrame):
        row = row.iloc[-1]
    row = {str(k): float(v) for k, v in row.items()}
    diff = _difficulties()[np.asarray(df["index"], dtype=int)]
    z = row.get("not_gamed_baseline.astype(float)", 0.0) + row.get("instruction_difficulty", 0.0) * diff
    return float(np.mean(_logistic(z)) * 100)


@case(rtol=0, atol=1e-9, outputs={"weights.*": {"compare": "none"}})
def identity_baseline_against_itself():
    df = annotations(6, 0.0, 1.0, 0.5)
    df["output_2"] = df["output_1"]
    df["generator_2"] = "base"
    root = tempfile.mkdtemp(prefix="lc_id_")
    out = metrics.get_length_controlled_winrate(df, glm_name="length_controlled_v1", save_weights_dir=root,
                                                is_warn_extreme_changes=False)
    return {"lc": float(out["length_controlled_winrate"]), "win_rate": float(out["win_rate"]),
            "glm_preference": np.asarray(df["glm_preference"], dtype=float),
            "weights": _weights_out(_weights_file(root, "length_controlled_v1", "base"))}


@case(rtol=0, atol=1e-9, outputs={"weights.*": {"compare": "none"}, "lc_frame": {"atol": 0.02}})
def not_inplace_and_records():
    df = annotations(12, 0.3, 0.7, 0.2, n=80)
    info = {"formula": FORMULA_FULL, "regularize_to_baseline_lambda": None, "kwargs": dict(MLE)}
    root = tempfile.mkdtemp(prefix="lc_r_")
    a = metrics.get_length_controlled_winrate(df, glm_info=info, save_weights_dir=root,
                                              is_add_glm_preference_inplace=False, is_warn_extreme_changes=False)
    b = metrics.get_length_controlled_winrate(df.to_dict("records"), glm_info=info, save_weights_dir=None,
                                              is_warn_extreme_changes=False)
    return {"has_column": "glm_preference" in df.columns, "lc_frame": float(a["length_controlled_winrate"]),
            "lc_records_minus_frame": float(b["length_controlled_winrate"] - a["length_controlled_winrate"]),
            "weights_saved_under_default_name": _weights_file(root, "length_controlled_v1", "base") is not None}


@case(rtol=0, atol=0.02, outputs={"matrix_percent": {"compare": "none"}, "pred_*": {"compare": "none"},
                                  "weights.*": {"compare": "none"}, "weights_after.*": {"compare": "none"},
                                  "lc_*": {"atol": 0.02}})
def weights_cache_and_predicted_winrates():
    """Fit the baseline (against itself) and two models into one weights file, refit one of them, then predict
    win rates from the stored weights (model vs baseline, model vs model)."""
    root = tempfile.mkdtemp(prefix="lc_c_")
    info = {"formula": FORMULA_FULL, "regularize_to_baseline_lambda": None, "kwargs": dict(MLE)}
    ident = annotations(30, 0.0, 1.0, 0.0)
    ident["output_2"] = ident["output_1"]
    ident["generator_2"] = "base"
    metrics.get_length_controlled_winrate(ident, glm_name="length_controlled_v1", glm_info=info,
                                          save_weights_dir=root, is_warn_extreme_changes=False)
    lcs = {}
    for name, seed, theta, psi in (("alpha", 31, 0.7, 0.5), ("beta", 32, -0.5, -0.3), ("alpha", 33, 0.2, 0.8)):
        df = annotations(seed, theta, 1.2, psi, model=name)
        out = metrics.get_length_controlled_winrate(df, glm_name="length_controlled_v1", glm_info=info,
                                                    save_weights_dir=root, is_warn_extreme_changes=False)
        lcs[name] = float(out["length_controlled_winrate"])
    weights = _weights_file(root, "length_controlled_v1", "base")
    wpath = _weights_path(root, "length_controlled_v1", "base") or os.path.join(root, "no_weights_file.csv")
    df = annotations(34, 0.1, 1.0, 0.2, model="gamma")
    via_baseline = metrics.get_length_controlled_winrate(df, glm_name="length_controlled_v1", glm_info=info,
                                                         save_weights_dir=root, baseline="alpha",
                                                         is_warn_extreme_changes=False)
    weights_after = _weights_file(root, "length_controlled_v1", "base")
    matrix = glm_winrate._predicted_winrate_matrix(["base", "alpha", "beta"], weights=weights)
    return {
        "lc_alpha": lcs["alpha"], "lc_beta": lcs["beta"],
        "weights": _weights_out(weights),
        "pred_alpha_vs_base": float(glm_winrate.predict_winrate("alpha", "base", weights=weights)),
        "pred_beta_vs_alpha": float(glm_winrate.predict_winrate("beta", "alpha", weights=wpath)),
        "pred_alpha_vs_alpha": float(glm_winrate.predict_winrate("alpha", "alpha", weights=weights)),
        "pred_gamma_vs_alpha": float(via_baseline["length_controlled_winrate"]),
        "gamma_win_rate": float(via_baseline["win_rate"]),
        "weights_after": _weights_out(weights_after),
        "matrix_percent": matrix.loc[["base", "alpha", "beta"], ["base", "alpha", "beta"]].to_numpy(dtype=float),
    }


@case(params=["length_controlled_noreg", "length_controlled_minimal"], compare="none")
def cross_validated(glm_name):
    df = annotations(40, 0.6, 1.3, 0.5, n=N_INSTR)
    out = metrics.get_length_controlled_winrate(df, glm_name=glm_name, save_weights_dir=None,
                                                is_warn_extreme_changes=False)
    info = {"formula": glm_winrate.GLM_INFO[glm_name]["formula"], "regularize_to_baseline_lambda": None,
            "kwargs": dict(MLE)}
    mle = metrics.get_length_controlled_winrate(df.copy(), glm_info=info, save_weights_dir=None,
                                                is_warn_extreme_changes=False)
    return {"lc": float(out["length_controlled_winrate"]), "lc_mle": float(mle["length_controlled_winrate"]),
            "win_rate": float(out["win_rate"]), "glm_mean": float(np.mean(df["glm_preference"])) * 100}
