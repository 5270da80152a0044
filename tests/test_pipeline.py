"""The library API without the CLI: `lmrbench.pipeline.run` on a lite task of the built-in suite."""

from __future__ import annotations

import json

from lmrbench.generate import GenOptions
from lmrbench.pipeline import Hooks, run
from lmrbench.records import Status
from lmrbench.rundir import RunDir
from lmrbench.tasks.loader import load_tasks


def test_run_generates_evaluates_and_reports_a_lite_task(tmp_path):
    tasks = load_tasks().restrict(["lion/1"], "lite")
    seen = []
    ref = run(tasks, RunDir(tmp_path / "reference"), GenOptions(model="reference"),
              hooks=Hooks(on_evaluation=seen.append))
    assert [(e.instance_id, e.status) for e in ref.evaluations] == [("lion/1", Status.PASSED)]
    assert [e.instance_id for e in seen] == ["lion/1"] and ref.missing == []
    assert ref.generated.done == 1 and ref.report.scores[0].status_counts[Status.PASSED] == 1
    assert (tmp_path / "reference" / "report.json").is_file() and (tmp_path / "reference" / "run.json").is_file()
    stub = run(tasks, RunDir(tmp_path / "stub"), GenOptions(model="stub"))  # the masked code: it must fail
    assert [(e.instance_id, e.status) for e in stub.evaluations] == [("lion/1", Status.FAILED)]
    again = run(tasks, RunDir(tmp_path / "reference"), GenOptions(model="reference"))  # resumable: nothing redone
    assert again.generated.done == 0
    lines = (tmp_path / "reference" / "evaluations.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["status"] == "passed"
