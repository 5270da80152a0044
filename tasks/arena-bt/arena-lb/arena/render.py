"""Text output of a leaderboard."""
from __future__ import annotations

from .results import Leaderboard


def render(board: Leaderboard) -> str:
    lines = [f"{'rank':>4}  {'model':<16}{'rating':>9}  {'95% CI':>17}  {'votes':>6}"]
    for r in board.rows:
        lines.append(f"{r.rank:>4}  {r.model:<16}{r.rating:>9.1f}  [{r.ci_low:7.1f}, {r.ci_high:7.1f}]  {r.n_votes:>6}")
    return "\n".join(lines)
