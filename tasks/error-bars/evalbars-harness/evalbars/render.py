"""Plain-text rendering of an eval report."""
from __future__ import annotations

import math

from evalbars.results import Comparison, EvalReport, ModelSummary


def _num(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.4f}"


def render_summary(s: ModelSummary, confidence: float) -> list[str]:
    clusters = "" if s.n_clusters is None else f", {s.n_clusters} clusters"
    return [f"{s.name}: {s.n_questions} questions{clusters}",
            f"  mean {_num(s.mean)}  se {_num(s.se)} (clt {_num(s.se_clt)})  "
            f"{confidence:.0%} ci [{_num(s.ci.low)}, {_num(s.ci.high)}]",
            f"  within-question variance {_num(s.within_var)}  between-question variance {_num(s.between_var)}"]


def render_comparison(c: Comparison, confidence: float) -> list[str]:
    return [f"{c.name_a} - {c.name_b} on {c.n_questions} questions",
            f"  difference {_num(c.diff)}  paired se {_num(c.se)}  unpaired se {_num(c.se_unpaired)}",
            f"  correlation {_num(c.correlation)}  z {_num(c.z)}  p {_num(c.p_value)}  "
            f"{confidence:.0%} ci [{_num(c.ci.low)}, {_num(c.ci.high)}]"]


def render_report(report: EvalReport, confidence: float) -> str:
    lines: list[str] = []
    for summary in report.models:
        lines += render_summary(summary, confidence)
    if report.comparison is not None:
        lines += render_comparison(report.comparison, confidence)
    return "\n".join(lines)
