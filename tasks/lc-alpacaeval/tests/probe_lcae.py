"""Probe for lc-alpacaeval/1: the length-controlled evaluation in lcae/length_control.py. Runs in the sandbox;
emits outputs only, never compares. Every case's outputs are compared with the reference's (tests/expected/,
outside the sandbox); the trusted checks in check_lcae.py add hand-checked values and the paper's properties."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from lcae.config import DifficultyConfig, GLMConfig, LeaderboardConfig
from lcae.leaderboard import leaderboard
from lcae.length_control import (
    fit_instruction_difficulty,
    fit_logistic,
    glm_features,
    length_controlled_winrate,
    model_vs_baseline,
)
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "lcae_cases.json").read_text())
EXACT = dict(rtol=1e-12, atol=1e-12)  # bookkeeping and closed-form features
FIT = dict(rtol=1e-5, atol=5e-6)  # fitted coefficients and difficulties (convergence, see NOTES.md)
RATE = dict(rtol=1e-6, atol=2e-5)  # win rates, in percent


def table(name: str) -> pd.DataFrame:
    if name == "hand2":  # the hand table's first two rows: two comparisons (x3 and x1)
        return table("hand").head(2)
    frame = pd.DataFrame.from_records(CASES["tables"][name])
    frame["preference"] = frame["preference"].astype(np.float64)
    return frame


def difficulty(name: str) -> pd.Series:
    values = CASES["difficulty"][name]
    return pd.Series(list(values.values()), index=list(values.keys()), dtype=np.float64)


def comparison_out(comp) -> dict:
    return {"instructions": list(comp.instructions), "win_prob": np.asarray(comp.win_prob),
            "model_len": np.asarray(comp.model_len), "baseline_len": np.asarray(comp.baseline_len)}


def result_out(res) -> dict:
    return {"model": res.model, "baseline": res.baseline, "n": int(res.n), "win_rate": float(res.win_rate),
            "lc_win_rate": float(res.lc_win_rate), "theta": float(res.theta), "phi": float(res.phi),
            "psi": float(res.psi)}


# ---------------------------------------------------------------- model_vs_baseline

PAIRS = [("t1", "alpha", "baseline"), ("t1", "beta", "baseline"), ("t1", "gamma", "baseline"),
         ("t2", "wordy", "ref"), ("t2", "terse", "ref"), ("t3", "m2", "baseline"), ("hand", "hm", "hb"),
         ("hand", "hb", "hm"), ("t1", "baseline", "gamma"), ("dup_nan", "alpha", "baseline"),
         ("solo", "solo", "baseline"), ("t2", "wordy", "terse")]


@case(params=range(len(PAIRS)), ids=["-".join(p) for p in PAIRS], **EXACT)
def comparison_matches_reference(i):
    name, model, baseline = PAIRS[i]
    return comparison_out(model_vs_baseline(table(name), model, baseline))


BAD_COMPARISONS = [("t1", "alpha", "alpha"), ("out_of_range", "alpha", "baseline"),
                   ("duplicate", "beta", "baseline"), ("t1", "alpha", "nobody"), ("t2", "ref", "ref"),
                   ("missing_column", "alpha", "baseline")]


@case(params=range(len(BAD_COMPARISONS)), ids=["-".join(p) for p in BAD_COMPARISONS])
def comparison_rejects(i):
    name, model, baseline = BAD_COMPARISONS[i]
    frame = table("t1").drop(columns=["output_2"]) if name == "missing_column" else table(name)
    return {"result": model_vs_baseline(frame, model, baseline)}


# ---------------------------------------------------------------- glm_features

FEATURES = [("t1", "alpha", "baseline", "d1", 1), ("t1", "beta", "baseline", "d2", 0),
            ("t2", "wordy", "ref", "d1", 1), ("t2", "terse", "ref", "d2", 2), ("t3", "m4", "baseline", "d1", 1),
            ("hand", "hm", "hb", "hand", 1), ("hand", "hm", "hb", "hand", 0), ("hand", "hb", "hm", "hand", 1),
            ("tiny", "hm", "hb", "hand", 1), ("hand2", "hm", "hb", "hand", 0)]


@case(params=range(len(FEATURES)), ids=["-".join(map(str, p)) for p in FEATURES], **EXACT)
def features_match_reference(i):
    name, model, baseline, diff, ddof = FEATURES[i]
    comp = model_vs_baseline(table(name), model, baseline)
    feats = glm_features(comp, difficulty(diff), GLMConfig(length_std_ddof=ddof))
    return {"features": np.asarray(feats), "instructions": list(comp.instructions), "ddof": ddof,
            "delta": np.asarray(comp.model_len - comp.baseline_len, dtype=np.float64),
            "gamma": difficulty(diff).loc[list(comp.instructions)].to_numpy()}


@case(params=["one_comparison", "equal_lengths", "missing_difficulty"])
def features_reject(kind):
    if kind == "one_comparison":
        comp = model_vs_baseline(table("hand").head(1), "hm", "hb")
        return {"result": glm_features(comp, difficulty("hand"), GLMConfig())}
    if kind == "equal_lengths":
        comp = model_vs_baseline(table("equal_lengths"), "hm", "hb")
        return {"result": glm_features(comp, difficulty("hand"), GLMConfig())}
    comp = model_vs_baseline(table("hand"), "hm", "hb")
    return {"result": glm_features(comp, difficulty("hand").drop("x3"), GLMConfig())}


# ---------------------------------------------------------------- fit_logistic


@case(params=range(len(CASES["logistic"])), **FIT)
def logistic_matches_reference(i):
    p = CASES["logistic"][i]
    x, t, l2 = (np.array(p[k], dtype=np.float64) for k in ("features", "targets", "l2"))
    return {"coef": np.asarray(fit_logistic(x.copy(), t.copy(), l2.copy(), 100, 1e-8)),
            "features": x, "targets": t, "l2": l2}


@case(**FIT)
def logistic_constant_feature():
    t = np.array([0.9, 0.2, 0.7, 0.6, 1.0])
    return {"unpenalised": np.asarray(fit_logistic(np.ones((5, 1)), t, np.zeros(1), 100, 1e-8)),
            "penalised": np.asarray(fit_logistic(np.ones((5, 1)), t, np.array([0.2]), 100, 1e-8)),
            "symmetric": np.asarray(fit_logistic(np.ones((4, 1)), np.array([0.3, 0.7, 0.5, 0.5]), np.zeros(1),
                                                 100, 1e-8))}


@case(params=[(0, 5), (2, 6)], ids=["problem0-budget5", "problem2-budget6"], **FIT)
def logistic_budget_suffices(arg):
    i, budget = arg  # one more Newton iteration than the reference needs to reach tol
    p = CASES["logistic"][i]
    x, t, l2 = (np.array(p[k], dtype=np.float64) for k in ("features", "targets", "l2"))
    return {"coef": np.asarray(fit_logistic(x, t, l2, budget, 1e-8))}


@case
def logistic_budget_exhausted():
    p = CASES["logistic"][0]
    x, t, l2 = (np.array(p[k], dtype=np.float64) for k in ("features", "targets", "l2"))
    return {"result": fit_logistic(x, t, l2, 1, 1e-8)}


# ---------------------------------------------------------------- fit_instruction_difficulty

DIFFICULTY = [("t1", "baseline", None, 0.1), ("t1", "baseline", ["gamma", "alpha"], 0.5),
              ("t2", "ref", None, 0.1), ("t3", "baseline", None, 0.05), ("t3", "baseline", ["m0", "m3"], 1.0),
              ("solo", "baseline", None, 0.3), ("t1", "gamma", ["baseline"], 0.1)]


def joint_rows(frame: pd.DataFrame, baseline: str, models) -> dict:
    """The joint fit's data (model index, instruction id, preference), for the trusted check."""
    if models is None:
        pairs = frame[["generator_1", "generator_2"]].to_numpy().astype(str)
        models = sorted({b if a == baseline else a for a, b in pairs if (a == baseline) != (b == baseline)})
    out = {"model": [], "instruction": [], "p": []}
    for m, name in enumerate(models):
        comp = model_vs_baseline(frame, name, baseline)
        out["model"] += [m] * len(comp)
        out["instruction"] += list(comp.instructions)
        out["p"] += [float(v) for v in comp.win_prob]
    return out


@case(params=range(len(DIFFICULTY)), ids=[f"{i}-{d[0]}" for i, d in enumerate(DIFFICULTY)], **FIT)
def difficulty_matches_reference(i):
    name, baseline, models, l2 = DIFFICULTY[i]
    frame = table(name)
    gamma = fit_instruction_difficulty(frame, baseline, models, DifficultyConfig(l2_difficulty=l2))
    return {"instructions": [str(x) for x in gamma.index], "gamma": gamma.to_numpy(dtype=np.float64),
            "l2": l2, "rows": joint_rows(frame, baseline, models)}


@case(**FIT)
def difficulty_ignores_model_order():
    frame = table("t3")
    config = DifficultyConfig(l2_difficulty=0.2)
    a = fit_instruction_difficulty(frame, "baseline", ["m0", "m1", "m2", "m3", "m4"], config)
    b = fit_instruction_difficulty(frame, "baseline", ["m4", "m2", "m0", "m3", "m1"], config)
    c = fit_instruction_difficulty(frame, "baseline", None, config)
    return {"given": a.to_numpy(), "permuted": b.loc[a.index].to_numpy(), "all": c.loc[a.index].to_numpy()}


@case(params=["no_model", "unknown_model", "budget", "missing_column"])
def difficulty_rejects(kind):
    if kind == "missing_column":
        return {"result": fit_instruction_difficulty(table("t1").drop(columns=["generator_2"]), "baseline", None,
                                                     DifficultyConfig())}
    if kind == "no_model":
        return {"result": fit_instruction_difficulty(table("t1"), "baseline", [], DifficultyConfig())}
    if kind == "unknown_model":
        return {"result": fit_instruction_difficulty(table("t1"), "baseline", ["alpha", "zeta"], DifficultyConfig())}
    return {"result": fit_instruction_difficulty(table("t1"), "baseline", None, DifficultyConfig(max_iter=1))}


# ---------------------------------------------------------------- length_controlled_winrate

LC = [("t1", "alpha", "baseline", "d1", GLMConfig()), ("t1", "beta", "baseline", "d2", GLMConfig()),
      ("t1", "gamma", "baseline", "zero", GLMConfig()),
      ("t2", "wordy", "ref", "d1", GLMConfig(l2_length=1.0, l2_model=0.0)),
      ("t2", "terse", "ref", "d2", GLMConfig(length_std_ddof=0, l2_instruction=0.5)),
      ("t3", "m2", "baseline", "d1", GLMConfig(l2_model=0.2, l2_length=0.001, l2_instruction=0.001)),
      ("hand", "hm", "hb", "hand", GLMConfig()), ("solo", "solo", "baseline", "d2", GLMConfig())]


@case(params=range(len(LC)), ids=[f"{i}-{c[0]}-{c[1]}" for i, c in enumerate(LC)], **RATE,
      outputs={"theta": FIT, "phi": FIT, "psi": FIT, "n": EXACT})
def lc_matches_reference(i):
    name, model, baseline, diff, config = LC[i]
    frame = table(name)
    res = length_controlled_winrate(frame, model, baseline, difficulty(diff), config)
    comp = model_vs_baseline(frame, model, baseline)
    return {**result_out(res), "win_prob": np.asarray(comp.win_prob),
            "gamma": difficulty(diff).loc[list(comp.instructions)].to_numpy(),
            "features": np.asarray(glm_features(comp, difficulty(diff), config)),
            "l2": list(config.l2())}


@case(params=["t1", "t2"], **RATE)
def lc_identity(name):
    baseline = "baseline" if name == "t1" else "ref"
    return result_out(length_controlled_winrate(table(name), baseline, baseline, difficulty("d1"), GLMConfig()))


@case(params=[("t1", "beta", "baseline", "d1"), ("t2", "terse", "ref", "d2"), ("t3", "m0", "baseline", "d2")],
      ids=["t1", "t2", "t3"], **RATE, outputs={"*.theta": FIT, "*.phi": FIT, "*.psi": FIT})
def lc_symmetry(arg):
    name, model, baseline, diff = arg
    frame = table(name)
    forward = length_controlled_winrate(frame, model, baseline, difficulty(diff), GLMConfig())
    backward = length_controlled_winrate(frame, baseline, model, difficulty(diff), GLMConfig())
    return {"forward": result_out(forward), "backward": result_out(backward)}


@case(params=["alpha", "beta"], **RATE, outputs={"*.theta": FIT, "*.phi": FIT, "*.psi": FIT})
def lc_length_scale_invariance(model):
    frame = table("t1")
    doubled = frame.assign(output_1=frame["output_1"] * 2, output_2=frame["output_2"] * 2)
    base = length_controlled_winrate(frame, model, "baseline", difficulty("d1"), GLMConfig())
    scaled = length_controlled_winrate(doubled, model, "baseline", difficulty("d1"), GLMConfig())
    return {"base": result_out(base), "scaled": result_out(scaled)}


@case(params=["missing_difficulty", "budget", "no_rows"])
def lc_rejects(kind):
    if kind == "missing_difficulty":
        return {"result": length_controlled_winrate(table("t1"), "alpha", "baseline", difficulty("hand"),
                                                    GLMConfig())}
    if kind == "budget":
        return {"result": length_controlled_winrate(table("t1"), "alpha", "baseline", difficulty("d1"),
                                                    GLMConfig(max_iter=1))}
    return {"result": length_controlled_winrate(table("t1"), "zeta", "baseline", difficulty("d1"), GLMConfig())}


# ---------------------------------------------------------------- end to end: the repository's leaderboard


@case(params=["t1", "t3"], **RATE, outputs={"theta": FIT, "phi": FIT, "psi": FIT, "n": EXACT})
def leaderboard_end_to_end(name):
    config = LeaderboardConfig(glm=replace(GLMConfig(), l2_length=0.02))
    board = leaderboard(table(name), config)
    return {"model": [str(m) for m in board["model"]], "n": board["n"].to_numpy(dtype=np.int64),
            **{k: board[k].to_numpy(dtype=np.float64) for k in ("win_rate", "lc_win_rate", "theta", "phi", "psi")}}
