"""Aggregate evaluations into per-model and per-category figures, and render them as tables."""

from __future__ import annotations

from collections import Counter, defaultdict

from pydantic import BaseModel, Field

from lmrbench.evaluate.models import Evaluation, Status
from lmrbench.tasks.loader import TaskSet


class ModelSummary(BaseModel):
    """Headline figures of one model over one run."""

    model: str
    instances: int = Field(description="Implementations evaluated.")
    evaluations: int = Field(description="(implementation, sample) pairs evaluated.")
    passed: int
    pass_rate: float = Field(description="Share of evaluations whose tests all passed.")
    mean_test_share: float = Field(description="Mean share of tests passed (partial credit).")
    status_counts: dict[str, int]
    per_category: dict[str, float] = Field(description="Pass rate per canonical category.")
    wall_s: float


def summarise(evals: list[Evaluation], tasks: TaskSet | None = None) -> list[ModelSummary]:
    cats: dict[str, str] = {}
    if tasks is not None:
        cats = {i.instance_id: (i.category.value if i.category else "uncategorised") for i in tasks.instances()}
    by_model: dict[str, list[Evaluation]] = defaultdict(list)
    for ev in evals:
        by_model[ev.model].append(ev)
    out = []
    for model, items in sorted(by_model.items()):
        per_cat: dict[str, list[bool]] = defaultdict(list)
        for ev in items:
            per_cat[cats.get(ev.instance_id, "uncategorised")].append(ev.passed)
        passed = sum(ev.passed for ev in items)
        out.append(ModelSummary(
            model=model,
            instances=len({ev.instance_id for ev in items}),
            evaluations=len(items),
            passed=passed,
            pass_rate=passed / len(items),
            mean_test_share=sum(ev.share_passed for ev in items) / len(items),
            status_counts=dict(Counter(ev.status.value for ev in items)),
            per_category={c: sum(v) / len(v) for c, v in sorted(per_cat.items())},
            wall_s=round(sum(ev.duration_s for ev in items), 1),
        ))
    return out


def markdown(evals: list[Evaluation], summaries: list[ModelSummary]) -> str:
    """A Markdown report: the summary table, then one row per evaluation."""
    lines = ["# lmrbench results", "", "| model | impls | passed | pass rate | mean test share | "
             + " | ".join(s.value for s in Status) + " |", "|---" * (5 + len(Status)) + "|"]
    for s in summaries:
        counts = " | ".join(str(s.status_counts.get(st.value, 0)) for st in Status)
        lines.append(f"| {s.model} | {s.instances} | {s.passed}/{s.evaluations} | {s.pass_rate:.1%} | "
                     f"{s.mean_test_share:.1%} | {counts} |")
    lines += ["", "| instance | model | sample | status | tests | seconds | reason |", "|---|---|---|---|---|---|---|"]
    for ev in sorted(evals, key=lambda e: (e.model, e.instance_id, e.sample)):
        reason = ev.reason.replace("|", "/")[:120]
        lines.append(f"| {ev.instance_id} | {ev.model} | {ev.sample} | {ev.status.value} | "
                     f"{ev.tests_passed}/{ev.tests_total} | {ev.duration_s:.1f} | {reason} |")
    return "\n".join(lines) + "\n"


def status_style(status: Status) -> str:
    return {Status.PASSED: "green", Status.FAILED: "red", Status.TIMEOUT: "yellow"}.get(status, "magenta")
