"""model_error (the provider gave no answer) is outside every rate, counted apart and listed to re-run; a prompt or
agent solver turns a provider failure into it, never into invalid_prediction."""

from __future__ import annotations

import math

from lmrbench.evaluate.runner import evaluate_one
from lmrbench.models.base import ModelError, ModelResponse
from lmrbench.models.fake import FakeModel, tool_call
from lmrbench.papers import paper_text
from lmrbench.records import Evaluation, Outcome, Status
from lmrbench.report.bundle import Drill, ReportData, to_csv, to_markdown
from lmrbench.report.html import render
from lmrbench.report.scoring import score_model
from lmrbench.solvers.agent import AgentLimits, agent_prediction
from lmrbench.solvers.prompt import prompt_prediction


def _ev(iid: str, status: Status, sample: int = 0) -> Evaluation:
    return Evaluation(instance_id=iid, task_id=iid.split("/")[0], index=1, model="m", sample=sample, key=iid,
                      status=status, tests_passed=int(status is Status.PASSED), tests_total=1)


def test_model_errors_are_outside_the_denominator():
    evals = [_ev("a/1", Status.PASSED), _ev("b/1", Status.FAILED), _ev("c/1", Status.MODEL_ERROR),
             _ev("d/1", Status.INVALID)]
    s = score_model("run", "m", evals, [], [], None)
    # 1 passed of the 3 the model answered (a, b, d); c had no answer
    assert s.pass_rate.n == 3 and math.isclose(s.pass_rate.value, 1 / 3)
    assert s.implementations == 3 and s.pass_at_k[1] == s.pass_rate.value
    assert s.status_counts["model_error"] == 1 and s.status_counts["invalid_prediction"] == 1
    assert s.model_errors == ["c/1#0"]


def test_a_run_with_only_model_errors_reports_without_a_rate():
    s = score_model("run", "m", [_ev("a/1", Status.MODEL_ERROR), _ev("a/1", Status.MODEL_ERROR, 1)], [], [], None)
    assert s.implementations == 0 and math.isnan(s.pass_rate.value) and s.pass_at_k == {}
    assert s.model_errors == ["a/1#0", "a/1#1"]
    data = ReportData(runs=["run"], scores=[s], agreement=[], drills=[Drill(
        instance_id="a/1", model="m", sample=0, status="model_error", tests_passed=0, tests_total=0,
        reason="no answer from the provider (re-run to retry): x", diff="", log_tail="", judge_notes=[])])
    md = to_markdown(data)
    assert "## Model errors" in md and "re-run to retry" in md and "a/1#0, a/1#1" in md
    assert to_csv(data).splitlines()[1].endswith(",2")  # the model_error column
    assert 'id="model-errors"' in render(data)


def test_provider_failures_become_model_error_and_code_less_answers_stay_invalid(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    impl = task.implementation(1)
    paper = paper_text(task, tmp_path / "np")
    down = prompt_prediction(task, impl, FakeModel([ModelError("connection closed")]), paper)
    prose = prompt_prediction(task, impl, FakeModel(["I would rather not."]), paper)
    assert down.meta.outcome is Outcome.MODEL_ERROR and prose.meta.outcome is Outcome.NO_CODE
    # an agent cut short by its provider after some steps: no answer to score either
    steps = [ModelResponse(tool_calls=[tool_call("bash", command="ls")]), ModelError("503 after retries")]
    cut = agent_prediction(task, impl, FakeModel(steps, name="fake/agent"), paper, tmp_path / "run",
                           AgentLimits(max_steps=5))
    assert cut.error and "503" in cut.error and cut.meta.outcome is Outcome.MODEL_ERROR and cut.meta.steps == 1
    statuses = [evaluate_one(task, impl, p, tmp_path / "w", tmp_path / "l").status for p in (down, prose, cut)]
    assert statuses == [Status.MODEL_ERROR, Status.INVALID, Status.MODEL_ERROR]
