"""Passes decided inside the candidate's process (pytest or legacy grading) are counted apart in every report:
the score's list, report.md, report.csv and report.html, with what such a pass can and cannot prove."""

from __future__ import annotations

import csv
import io

from lmrbench.records import Evaluation, Grading, Status
from lmrbench.report.bundle import ReportData, to_csv, to_markdown
from lmrbench.report.html import render
from lmrbench.report.scoring import score_model


def _ev(iid: str, status: Status, forgeable: bool) -> Evaluation:
    return Evaluation(instance_id=iid, task_id=iid.split("/")[0], index=1, model="m", sample=0, key=iid,
                      status=status, tests_passed=int(status is Status.PASSED), tests_total=1, forgeable=forgeable,
                      grading=Grading.LEGACY if forgeable else Grading.PROBE)


def test_forgeable_passes_are_listed_apart_in_every_report():
    evals = [_ev("a/1", Status.PASSED, True), _ev("b/1", Status.PASSED, False), _ev("c/1", Status.FAILED, True)]
    s = score_model("run", "m", evals, [], [], None)
    assert s.forgeable_passes == ["a/1#0"]  # a failed legacy item is not a pass to doubt
    assert s.status_counts["passed"] == 2
    data = ReportData(runs=["run"], scores=[s], agreement=[], drills=[])
    md = to_markdown(data)
    assert "## Passes a candidate could forge" in md and "| m | 1 | 2 | a/1#0 |" in md
    row = next(csv.DictReader(io.StringIO(to_csv(data))))
    assert row["forgeable_passes"] == "1"
    assert 'id="forgeable"' in render(data) and "a/1#0" in render(data)


def test_a_probe_graded_run_has_no_forgeable_section():
    s = score_model("run", "m", [_ev("b/1", Status.PASSED, False)], [], [], None)
    data = ReportData(runs=["run"], scores=[s], agreement=[], drills=[])
    assert s.forgeable_passes == [] and "could forge" not in to_markdown(data) and 'id="forgeable"' not in render(data)
