"""What a report holds (the data html.py and bundle.py both render), and the notes every format shows."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lmrbench.judge.agreement import Agreement
from lmrbench.records import Status
from lmrbench.report.budget_curve import BudgetCurve
from lmrbench.report.scoring import ModelScore

LOG_TAIL_BYTES = 16 * 1024  # of each test log, in every report

FORGEABLE_NOTE = ("These passes were decided inside the candidate's own process (the original layout's unit tests, "
                  "or in-process pytest): code that writes the log such a test would write and exits 0 passes them. "
                  "They show the code ran the tests without a visible failure, not that it is right; probe-graded "
                  "passes (verdicts computed outside the sandbox) are the ones a candidate cannot forge.")


class Drill(BaseModel):
    instance_id: str
    model: str
    sample: int
    status: Status
    tests_passed: int
    tests_total: int
    reason: str
    cause: str = ""
    log_rule: bool | None = None
    diff: str
    log_tail: str
    judge_notes: list[tuple[str, str]]


class ReportData(BaseModel):
    runs: list[str]
    scores: list[ModelScore]
    drills: list[Drill]
    agreement: list[Agreement]
    budget_curves: list[BudgetCurve] = Field(default_factory=list, description="Pass rate against budget, per "
                                             "model with agent predictions.")
