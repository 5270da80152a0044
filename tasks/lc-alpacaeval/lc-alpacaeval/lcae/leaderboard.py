"""A leaderboard: every model's raw and length-controlled win rate against one baseline."""
from __future__ import annotations

import pandas as pd

from lcae.config import LeaderboardConfig
from lcae.length_control import fit_instruction_difficulty, length_controlled_winrate


def leaderboard(annotations: pd.DataFrame, config: LeaderboardConfig) -> pd.DataFrame:
    """One row per model (the baseline included), sorted by length-controlled win rate, best first.

    Columns: model, n, win_rate, lc_win_rate, theta, phi, psi.
    """
    difficulty = fit_instruction_difficulty(annotations, config.baseline, None, config.difficulty)
    generators = pd.unique(annotations[["generator_1", "generator_2"]].to_numpy().ravel())
    rows = []
    for model in sorted(str(g) for g in generators):
        result = length_controlled_winrate(annotations, model, config.baseline, difficulty, config.glm)
        rows.append({"model": model, "n": result.n, "win_rate": result.win_rate,
                     "lc_win_rate": result.lc_win_rate, "theta": result.theta, "phi": result.phi,
                     "psi": result.psi})
    table = pd.DataFrame(rows)
    return table.sort_values(["lc_win_rate", "model"], ascending=[False, True], ignore_index=True)
