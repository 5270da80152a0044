"""Pass rate against budget: for each model's agent predictions, the share of implementations passed within a
fraction of the budget, for steps, tokens and wall time.

An item (implementation, sample) counts as passed within b when it passed and what it used of that dimension is at
most b times its own budget (a task may set its own, so fractions, not absolute amounts, are compared). The rate
at b is the mean over implementations of the share of its samples passed within b (pass@1 at b; with one sample,
the share of implementations). At b = 1 it is the pass rate of the items that kept within their budget.
"""

from __future__ import annotations

import html
from collections import defaultdict

from pydantic import BaseModel, Field

from lmrbench.budget import BUDGET_FIELDS, BudgetField, BudgetUse
from lmrbench.records import Evaluation, Prediction

FRACTIONS = (0.1, 0.25, 0.5, 0.75, 1.0)
DIMENSION_NAMES: dict[BudgetField, str] = {"max_steps": "steps", "max_tokens": "tokens", "max_wall_s": "wall time"}


class BudgetCurve(BaseModel):
    """One model's pass rate against one budget dimension, in one run."""

    run: str
    model: str
    dimension: BudgetField = Field(description="The budget field the fractions are of.")
    implementations: int = Field(description="Implementations with a budget record (agent settings).")
    unmeasured: int = Field(default=0, description="Items whose use of this dimension was not measured (an "
                            "outside agent's steps or time): then no rate is given.")
    fractions: list[float] = Field(default_factory=lambda: list(FRACTIONS), description="Fractions of the budget.")
    pass_rate: list[float | None] = Field(default_factory=list, description="Rate at each fraction; None when "
                                          "some item's use was not measured.")


def _records(evals: list[Evaluation], preds: list[Prediction]) -> dict[str, list[tuple[Evaluation, BudgetUse]]]:
    """Per model, its evaluations with a budget record (the evaluation's own, else its prediction's)."""
    by_pred = {p.item_key: p.meta.budget for p in preds}
    out: dict[str, list[tuple[Evaluation, BudgetUse]]] = defaultdict(list)
    for ev in evals:
        use = ev.budget or by_pred.get(ev.item_key)
        if use is not None:
            out[ev.model].append((ev, use))
    return out


def _within(ev: Evaluation, use: BudgetUse, field: BudgetField, fraction: float) -> bool:
    used = use.used(field)
    return ev.passed and used is not None and used <= fraction * getattr(use.budget, field)


def _curve(run: str, model: str, items: list[tuple[Evaluation, BudgetUse]], field: BudgetField) -> BudgetCurve:
    per_impl: dict[str, list[tuple[Evaluation, BudgetUse]]] = defaultdict(list)
    for ev, use in items:
        per_impl[ev.instance_id].append((ev, use))
    unmeasured = sum(use.used(field) is None for _, use in items)
    rates: list[float | None] = []
    for f in FRACTIONS:
        if unmeasured:
            rates.append(None)
            continue
        shares = [sum(_within(ev, use, field, f) for ev, use in rows) / len(rows) for rows in per_impl.values()]
        rates.append(sum(shares) / len(shares))
    return BudgetCurve(run=run, model=model, dimension=field, implementations=len(per_impl), unmeasured=unmeasured,
                       pass_rate=rates)


def budget_curves(run: str, evals: list[Evaluation], preds: list[Prediction]) -> list[BudgetCurve]:
    """Every model with budget records in one run: a curve per budget dimension."""
    return [_curve(run, model, items, field)
            for model, items in sorted(_records(evals, preds).items()) for field in BUDGET_FIELDS]


def budget_markdown(curves: list[BudgetCurve]) -> list[str]:
    """The report.md section (empty without agent predictions)."""
    if not curves:
        return []
    head = " | ".join(f"<= {f:g} of budget" for f in FRACTIONS)
    lines = ["", "## Pass rate against budget", "",
             "Share of implementations passed using at most the given fraction of their budget (agent settings).",
             "", f"| run | model | budget | impls | {head} |", "|---" * (4 + len(FRACTIONS)) + "|"]
    for c in curves:
        cells = " | ".join("not measured" if r is None else f"{r:.1%}" for r in c.pass_rate)
        lines.append(f"| {c.run} | {c.model} | {DIMENSION_NAMES[c.dimension]} | {c.implementations} | {cells} |")
    return lines


PALETTE = ["#3b6fb6", "#d9822b", "#2f9e44", "#ae3ec9", "#e03131", "#1098ad", "#5c940d", "#862e9c"]


def _svg(curves: list[BudgetCurve], field: BudgetField) -> str:
    """One inline chart: pass rate (y) against the fraction of the budget (x), a line per run and model."""
    w, h, pad = 320, 220, 36
    name = DIMENSION_NAMES[field]
    parts = [f'<svg class="chart-svg budget-svg" id="budget-{field}" width="{w}" height="{h}" '
             f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="pass rate against {name} budget">',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - 10}" y2="{h - pad}" stroke="#999"/>',
             f'<line x1="{pad}" y1="10" x2="{pad}" y2="{h - pad}" stroke="#999"/>',
             f'<text x="{pad}" y="{h - 8}" font-size="11">fraction of the {name} budget (0 to 1)</text>',
             '<text x="4" y="16" font-size="11">pass rate</text>']
    rows = [c for c in curves if c.dimension == field]
    for i, c in enumerate(rows):
        pts = [(pad + f * (w - pad - 20), (h - pad) - r * (h - pad - 20))
               for f, r in zip(c.fractions, c.pass_rate, strict=True) if r is not None]
        colour = PALETTE[i % len(PALETTE)]
        label = html.escape(f"{c.model} ({c.run})")
        if len(pts) > 1:
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                         f'points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in pts)}"><title>{label}</title></polyline>')
        parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{label}</title></circle>'
                  for x, y in pts]
    parts.append("</svg>")
    return f'<div class="chart"><b>{html.escape(name)}</b><br>{"".join(parts)}</div>'


def budget_html(curves: list[BudgetCurve]) -> str:
    """The report.html section: a chart per dimension and the table behind them (empty without agent runs)."""
    if not curves:
        return ""
    models = sorted({(c.run, c.model) for c in curves})
    legend = "".join(f'<span style="color:{PALETTE[i % len(PALETTE)]}">&#9632; {html.escape(f"{m} ({r})")}</span> '
                     for i, (r, m) in enumerate(models))
    head = "".join(f"<th>&le; {f:g}</th>" for f in FRACTIONS)
    rows = "".join(
        f"<tr><td>{html.escape(c.model)}</td><td>{html.escape(c.run)}</td><td>{DIMENSION_NAMES[c.dimension]}</td>"
        f"<td>{c.implementations}</td>"
        + "".join(f"<td>{'not measured' if r is None else f'{100 * r:.1f}%'}</td>" for r in c.pass_rate) + "</tr>"
        for c in curves)
    return ("<h2>Pass rate against budget</h2><p class=\"muted\">Share of implementations passed using at most the "
            "given fraction of their own budget (agent settings).</p>"
            + "".join(_svg(curves, f) for f in BUDGET_FIELDS) + f"<div>{legend}</div>"
            f'<table id="budget-curve"><thead><tr><th>model</th><th>run</th><th>budget</th><th>impls</th>{head}'
            f"</tr></thead><tbody>{rows}</tbody></table>")
