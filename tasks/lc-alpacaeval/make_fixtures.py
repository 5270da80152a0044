"""Regenerate tests/fixtures for lc-alpacaeval/1 (inputs and options only; outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/lcae_cases.json: annotation tables (records; NaN preferences as null), difficulty vectors and
logistic-regression problems. Deterministic.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from lcae.simulate import JudgeConfig, SimulatedModel, simulate


def records(table: pd.DataFrame) -> list[dict]:
    out = []
    for row in table.to_dict(orient="records"):
        pref = row["preference"]
        row["preference"] = None if math.isnan(pref) else float(pref)
        out.append(row)
    return out


def shuffled(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    return table.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def main_tables() -> dict[str, pd.DataFrame]:
    models = [SimulatedModel("alpha", 0.7, 22), SimulatedModel("beta", -0.5, 60, 0.6),
              SimulatedModel("gamma", 0.1, 35, 1.4)]
    t1 = shuffled(simulate(models, 24, JudgeConfig(seed=1)), 11)
    strong = JudgeConfig(seed=2, length_bias=3.0, noise=1.0, fail_rate=0.15, length_scale=60.0)
    t2 = simulate([SimulatedModel("wordy", -0.2, 50), SimulatedModel("terse", 0.4, 15)], 12, strong, baseline="ref")
    extra = pd.DataFrame.from_records([  # rows that compare other pairs, which every fit must ignore
        {"instruction": "x001", "generator_1": "wordy", "generator_2": "terse", "output_1": "a b c",
         "output_2": "d", "preference": 1.9},
        {"instruction": "x002", "generator_1": "ref", "generator_2": "ref", "output_1": "same",
         "output_2": "same", "preference": 1.5},
        {"instruction": "x003", "generator_1": "other", "generator_2": "terse", "output_1": "q" * 90,
         "output_2": "r", "preference": 1.1},
    ])
    t2 = shuffled(pd.concat([t2, extra], ignore_index=True), 12)
    big = [SimulatedModel(f"m{i}", q, w, s) for i, (q, w, s) in
           enumerate([(0.9, 18, 1.0), (0.2, 45, 0.8), (-0.4, 80, 1.2), (0.0, 30, 1.0), (-1.0, 25, 0.5)])]
    t3 = shuffled(simulate(big, 40, JudgeConfig(seed=3, difficulty_scale=1.5)), 13)
    one = simulate([SimulatedModel("solo", 0.3, 30)], 9, JudgeConfig(seed=4, fail_rate=0.0))
    return {"t1": t1, "t2": t2, "t3": t3, "solo": one}


def hand_table() -> pd.DataFrame:
    """Four instructions; the model is shown second on x1 and x2 and first on x3 and x4.

    Preferences 1.0, 2.0, 1.5, 1.25 -> the model's win probabilities 0, 1, 0.5, 0.75 on x1..x4.
    Lengths (model, baseline): x1 (3, 5), x2 (6, 6), x3 (9, 7), x4 (8, 4) -> differences -2, 0, 2, 4.
    """
    rows = [("x3", "hm", "hb", "m" * 9, "b" * 7, 1.5), ("x1", "hb", "hm", "b" * 5, "m" * 3, 1.0),
            ("x4", "hm", "hb", "m" * 8, "b" * 4, 1.25), ("x2", "hb", "hm", "b" * 6, "m" * 6, 2.0)]
    return pd.DataFrame.from_records(rows, columns=["instruction", "generator_1", "generator_2", "output_1",
                                                    "output_2", "preference"])


def bad_tables(t1: pd.DataFrame) -> dict[str, pd.DataFrame]:
    out_of_range = t1.copy()
    row = out_of_range.index[(out_of_range["generator_1"] == "alpha") | (out_of_range["generator_2"] == "alpha")][3]
    out_of_range.loc[row, "preference"] = 2.2
    duplicate = pd.concat([t1, t1[(t1["generator_2"] == "beta") | (t1["generator_1"] == "beta")].head(1)],
                          ignore_index=True)
    # the same instruction twice, but one row failed (NaN): the failed one is not used, so this is fine
    failed_dup = t1[(t1["generator_2"] == "alpha") | (t1["generator_1"] == "alpha")].head(1).copy()
    failed_dup["preference"] = float("nan")
    dup_nan = pd.concat([t1, failed_dup], ignore_index=True)
    equal_lengths = hand_table().assign(output_1=lambda t: t["output_1"].str[:2],
                                        output_2=lambda t: t["output_2"].str[:2])
    # length differences 0, 0, 1, 0: a spread below one character (std 0.5 with ddof 1)
    tiny = hand_table().assign(output_1=["m" * 6, "b" * 5, "m" * 5, "b" * 5],
                               output_2=["b" * 5, "m" * 5, "b" * 5, "m" * 5])
    return {"out_of_range": out_of_range, "duplicate": duplicate, "dup_nan": dup_nan,
            "equal_lengths": equal_lengths, "tiny": tiny}


def logistic_problems(rng: np.random.Generator) -> list[dict]:
    problems = []
    for n, k, l2 in ((30, 3, [0.01, 0.05, 0.01]), (8, 2, [0.1, 0.1]), (50, 4, [0.0, 0.3, 0.02, 1.0]),
                     (200, 3, [1e-3, 1e-3, 1e-3]), (5, 1, [0.5]), (40, 6, [0.0, 0.1, 0.1, 0.1, 0.1, 0.1])):
        x = rng.standard_normal((n, k))
        x[:, 0] = 1.0
        w = rng.standard_normal(k)
        p = 1.0 / (1.0 + np.exp(-(x @ w + 0.5 * rng.standard_normal(n))))
        problems.append({"features": x.tolist(), "targets": p.tolist(), "l2": l2})
    # hard 0/1 targets (a preference of exactly 1 or 2) and a near-separable problem held by the penalty
    x = np.stack([np.ones(12), np.linspace(-1, 1, 12)], axis=1)
    problems.append({"features": x.tolist(), "targets": (x[:, 1] > 0.1).astype(float).tolist(), "l2": [0.01, 0.01]})
    return problems


def difficulty_vectors(rng: np.random.Generator) -> dict[str, dict[str, float]]:
    """Difficulty Series (as dicts) covering more instructions than any table, in a shuffled order."""
    ids = [f"x{i:03d}" for i in range(45)]
    out = {}
    for name in ("d1", "d2"):
        order = rng.permutation(len(ids))
        values = rng.standard_normal(len(ids))
        out[name] = {ids[i]: float(values[i]) for i in order}
    out["zero"] = {x: 0.0 for x in ids}
    out["hand"] = {"x1": 0.5, "x2": -1.0, "x3": 0.0, "x4": 2.0, "x9": 3.0}
    return out


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20240406)
    tables = main_tables()
    tables["hand"] = hand_table()
    tables.update(bad_tables(tables["t1"]))
    cases = {"tables": {k: records(v) for k, v in tables.items()},
             "difficulty": difficulty_vectors(rng),
             "logistic": logistic_problems(rng)}
    (out / "lcae_cases.json").write_text(json.dumps(cases, sort_keys=True))


if __name__ == "__main__":
    main()
