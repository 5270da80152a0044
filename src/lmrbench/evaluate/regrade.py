"""Re-grade a finished run from disk: every probe verdict recomputed from the kept data, no sandbox."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from lmrbench.evaluate.batch import latest_evaluations
from lmrbench.evaluate.graders import ProbeGrader
from lmrbench.evaluate.item import with_notes
from lmrbench.records import Evaluation, Grading, Status
from lmrbench.rundir import RunDir
from lmrbench.tasks.loader import TaskSet


class Regraded(BaseModel):
    """One evaluation re-graded: the new record and whether its verdict is what was recorded."""

    before: Evaluation
    after: Evaluation
    same: bool = Field(description="Status, tests passed/total, reason and failures all equal.")


def regrade_one(ev: Evaluation, tasks: TaskSet, run_dir: Path) -> Evaluation:
    """The evaluation with its verdict recomputed from its kept probe data (unchanged if it has none)."""
    if ev.grading is not Grading.PROBE or not ev.outputs_path or ev.status is Status.INVALID:
        return ev
    outputs = RunDir(run_dir).resolve(ev.outputs_path)
    probe = ProbeGrader()
    facts = probe.kept_facts(outputs)
    if facts is None:
        return ev.model_copy(update={"status": Status.ERROR, "reason": f"regrade: no run facts beside {outputs}"})
    task, impl = tasks.resolve(ev.instance_id)
    v = probe.grade_data(task, impl, outputs, facts.exit_code, facts.timed_out, set(facts.lacking))
    reason = with_notes(v.reason, facts.limits_hit, facts.tampered)
    return ev.model_copy(update={"status": v.status, "tests_passed": v.tests_passed, "tests_total": v.tests_total,
                                 "tests_duration_s": v.tests_duration_s, "reason": reason, "failures": v.failures})


def regrade_run(run_dir: Path, tasks: TaskSet) -> list[Regraded]:
    """Every latest evaluation of a run (of the implementations in `tasks`), re-graded."""
    out = []
    selected = {i.instance_id for i in tasks.instances()}
    for ev in latest_evaluations(RunDir(run_dir).evaluations):
        if ev.instance_id not in selected:
            continue
        after = regrade_one(ev, tasks, run_dir)
        same = after.model_dump(include={"status", "tests_passed", "tests_total", "reason", "failures"}) == \
            ev.model_dump(include={"status", "tests_passed", "tests_total", "reason", "failures"})
        out.append(Regraded(before=ev, after=after, same=same))
    return out
