"""The agent budget: declared per split, overridable by a task and by a run, stated to the agent and to outside
agents, recorded with every prediction, evaluation and run, and drawn in the report as pass rate against budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lmrbench.budget import DEFAULT_BUDGET, UPSTREAM_BUDGET, Budget, BudgetOverride, BudgetUse, resolve_budget
from lmrbench.external import export_workspaces, predictions_from_dirs
from lmrbench.models.base import ModelResponse
from lmrbench.models.fake import FakeModel, tool_call
from lmrbench.papers import paper_text
from lmrbench.records import Evaluation, Outcome, Prediction, PredictionMeta, Status
from lmrbench.report.bundle import collect, to_markdown
from lmrbench.report.html import render
from lmrbench.solvers.agent import AgentLimits, agent_prediction, task_budget
from lmrbench.tasks.loader import load_tasks
from tests.conftest import GOLDEN, write_task


def _with_budget(task_dir: Path, budget: dict) -> None:
    info = json.loads((task_dir / "info.json").read_text())
    (task_dir / "info.json").write_text(json.dumps(info | {"budget": budget}))


def test_split_defaults_task_and_run_overrides():
    assert resolve_budget("lite").budget == resolve_budget("main").budget == resolve_budget(None).budget
    assert DEFAULT_BUDGET == Budget(max_steps=30, max_tokens=400_000, max_wall_s=1800)
    up = resolve_budget("upstream")
    assert up.budget == UPSTREAM_BUDGET == Budget(max_steps=50, max_tokens=1_250_000, max_wall_s=2700)
    assert set(up.origin.values()) == {"split"} and up.steps is None  # nothing used yet
    mixed = resolve_budget("upstream", BudgetOverride(max_steps=40, max_tokens=900_000), BudgetOverride(max_steps=7))
    assert mixed.budget == Budget(max_steps=7, max_tokens=900_000, max_wall_s=2700)
    assert mixed.origin == {"max_steps": "run", "max_tokens": "task", "max_wall_s": "split"}
    # the built-in upstream tasks get the upstream budget, the lite and main ones the default
    ts = load_tasks()
    assert task_budget(ts.task("rouge-score")).budget == UPSTREAM_BUDGET
    assert task_budget(ts.task("dpo")).budget == DEFAULT_BUDGET


def test_a_bad_task_budget_is_a_clear_error(tmp_path):
    from lmrbench.tasks.schema import TaskFormatError

    _with_budget(write_task(tmp_path), {"max_steps": 0})
    with pytest.raises(TaskFormatError, match=r"budget\.max_steps"):
        load_tasks(tmp_path, strict=True)


def _bash(cmd: str, n: int) -> dict:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": cmd}}], "content": f"step {n}"}


def test_run_records_the_budget_in_predictions_evaluations_run_json_and_report(tmp_path):
    """`lmrbench run --solver agent` with the fake model: the task sets its tokens, the run its steps."""
    suite = tmp_path / "suite"
    suite.mkdir()
    _with_budget(write_task(suite), {"max_tokens": 50_000})
    script = tmp_path / "script.jsonl"
    write = f"cat > calc/ops.py <<'EOF'\n{GOLDEN}EOF\n"
    script.write_text("\n".join(json.dumps(r) for r in [_bash("cat .task/INSTRUCTIONS.md", 1), _bash(write, 2),
                                                         {"tool_calls": [{"name": "submit"}]}]) + "\n")
    run = tmp_path / "run"
    res = subprocess.run([sys.executable, "-m", "lmrbench", "run", "--model", "fake", "--solver", "agent",
                          "--fake-script", str(script), "--tasks", str(suite), "-t", "toy", "--max-steps", "5",
                          "--run-dir", str(run), "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    expected = Budget(max_steps=5, max_tokens=50_000, max_wall_s=1800)
    info = json.loads((run / "run.json").read_text())
    assert info["budgets"] == {"toy": expected.model_dump()} and info["limits"]["max_steps"] == 5
    [pred] = [Prediction.model_validate_json(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    use = pred.meta.budget
    assert use is not None and use.budget == expected
    assert use.origin == {"max_steps": "run", "max_tokens": "task", "max_wall_s": "split"}
    assert use.steps == 3 and use.tokens == pred.meta.usage.input_tokens + pred.meta.usage.output_tokens > 0
    assert use.wall_s is not None and 0 < use.wall_s < 1800
    [ev] = [Evaluation.model_validate_json(line) for line in (run / "evaluations.jsonl").read_text().splitlines()]
    assert ev.status is Status.PASSED and ev.budget == use
    # the agent was told the same budget it ran under (its first message is INSTRUCTIONS.md)
    traj = json.loads(Path(pred.meta.trajectory).read_text())
    first = traj["messages"][1]["content"]
    assert "at most 5 steps (model calls), 50,000 tokens" in first and "30 minutes of wall-clock time" in first
    # passed with 3 of 5 steps: not within 0.1 or 0.25 of the budget (0.5, 1.25 steps), within 0.75 and 1
    md = (run / "report.md").read_text()
    assert "## Pass rate against budget" in md
    assert "| run | fake | steps | 1 | 0.0% | 0.0% | 0.0% | 100.0% | 100.0% |" in md


def test_an_agent_over_its_step_budget_stops_with_outcome_limit(toy_root, tmp_path):
    _with_budget(toy_root / "toy", {"max_steps": 2})
    ts = load_tasks(toy_root, strict=True)
    task = ts.task("toy")
    fake = FakeModel([ModelResponse(tool_calls=[tool_call("bash", f"c{i}", command="ls")]) for i in range(10)])
    pred = agent_prediction(task, task.implementation(1), fake, paper_text(task, tmp_path / "np"), tmp_path / "run",
                            AgentLimits())
    assert len(fake.requests) == 2 and pred.meta.outcome is Outcome.LIMIT
    assert pred.meta.exit == "limit: step limit (2)"
    assert pred.meta.budget is not None and pred.meta.budget.steps == 2
    assert pred.meta.budget.budget.max_steps == 2 and pred.meta.budget.origin["max_steps"] == "task"


def test_exported_instructions_state_the_budget_and_from_dirs_records_it(toy_root, tmp_path):
    write_task(toy_root, "toy-up")
    _with_budget(toy_root / "toy-up", {"max_steps": 12, "max_wall_s": 90})
    ts = load_tasks(toy_root, strict=True)
    made = {p.name: p for p in export_workspaces(ts, tmp_path / "ws")}
    plain = (made["toy__1"] / "INSTRUCTIONS.md").read_text()
    assert ("Budget: at most 30 steps (model calls), 400,000 tokens (input plus output, over the whole episode) "
            "and 30 minutes of wall-clock time.") in plain
    own = (made["toy-up__1"] / "INSTRUCTIONS.md").read_text()
    assert "at most 12 steps (model calls), 400,000 tokens" in own and "1.5 minutes of wall-clock time" in own
    preds = {p.instance_id: p for p in predictions_from_dirs(ts, tmp_path / "ws", "outside")}
    use = preds["toy-up/1"].meta.budget
    assert use is not None and use.budget == Budget(max_steps=12, max_tokens=400_000, max_wall_s=90)
    assert (use.steps, use.tokens, use.wall_s) == (None, None, None)  # an outside agent's use is not measured


def _use(steps: int, tokens: int, wall: float, budget: Budget = DEFAULT_BUDGET) -> BudgetUse:
    return BudgetUse(budget=budget, steps=steps, tokens=tokens, wall_s=wall)


def _ev(iid: str, model: str, status: Status, use: BudgetUse | None, sample: int = 0) -> Evaluation:
    task_id, _, idx = iid.partition("/")
    return Evaluation(instance_id=iid, task_id=task_id, index=int(idx), model=model, sample=sample, key=iid + model
                      + str(sample), status=status, budget=use)


def test_pass_rate_against_budget_on_a_synthetic_run(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("ta", "tb", "tc", "td"):
        write_task(suite, name)
    ts = load_tasks(suite, strict=True)
    run = tmp_path / "run"
    run.mkdir()
    small = Budget(max_steps=10, max_tokens=1000, max_wall_s=100)  # a task with its own budget: fractions of it
    evals = [
        _ev("ta/1", "m", Status.PASSED, _use(3, 100_000, 900)),  # steps 0.1, tokens 0.25, wall 0.5
        _ev("tb/1", "m", Status.PASSED, _use(15, 400_000, 1800)),  # steps 0.5, tokens 1.0, wall 1.0
        _ev("tc/1", "m", Status.FAILED, _use(30, 10, 1)),  # failed: never counts
        _ev("td/1", "m", Status.PASSED, _use(7, 1001, 10, small)),  # steps 0.7, tokens over budget, wall 0.1
        _ev("ta/1", "outside", Status.PASSED, BudgetUse(budget=DEFAULT_BUDGET)),  # not measured
        _ev("ta/1", "prompted", Status.PASSED, None),  # no budget: no curve
    ]
    (run / "evaluations.jsonl").write_text("".join(e.model_dump_json() + "\n" for e in evals))
    preds = [Prediction(instance_id=e.instance_id, model=e.model, functions={}, meta=PredictionMeta(budget=e.budget))
             for e in evals]
    (run / "predictions.jsonl").write_text("".join(p.model_dump_json() + "\n" for p in preds))
    data = collect([run], ts)
    curves = {(c.model, c.dimension): c for c in data.budget_curves}
    assert {m for m, _ in curves} == {"m", "outside"}
    # hand-checked, over 4 implementations, at fractions 0.1 0.25 0.5 0.75 1:
    assert curves["m", "max_steps"].pass_rate == [0.25, 0.25, 0.5, 0.75, 0.75]  # ta@.1, tb@.5, td@.7
    assert curves["m", "max_tokens"].pass_rate == [0.0, 0.25, 0.25, 0.25, 0.5]  # ta@.25, tb@1, td over
    assert curves["m", "max_wall_s"].pass_rate == [0.25, 0.25, 0.5, 0.5, 0.75]  # td@.1, ta@.5, tb@1
    assert curves["outside", "max_steps"].pass_rate == [None] * 5 and curves["outside", "max_steps"].unmeasured == 1
    md = to_markdown(data)
    assert "| run | m | steps | 4 | 25.0% | 25.0% | 50.0% | 75.0% | 75.0% |" in md
    assert "| run | outside | wall time | 1 | not measured |" in md
    page = render(data)
    assert 'id="budget-max_steps"' in page and 'id="budget-curve"' in page and "<td>75.0%</td>" in page


def test_report_escapes_budget_fields(tmp_path):
    from lmrbench.report.budget_curve import BudgetCurve, budget_html

    evil = "<script>alert(1)</script>"
    page = budget_html([BudgetCurve(run=evil, model=evil, dimension="max_steps", implementations=1,
                                    pass_rate=[0.0, 0.5, 0.5, 1.0, 1.0])])
    assert "<script>" not in page and "&lt;script&gt;" in page
