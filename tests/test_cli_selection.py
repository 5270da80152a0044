"""The CLI's selection and run-folder rules on a toy suite: -t/--split/--since on the commands that select or
report, evaluate's default run folder, and predictions kept in the run folder they were evaluated into."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from lmrbench.authoring.fixtures import build_fixtures
from lmrbench.tasks.loader import load_tasks
from tests.cli_inprocess import run_cli
from tests.conftest import write_task

RIGHT = "def add_scaled(a, b, k):\n    return [x + k * y for x, y in zip(a, b)]\n"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd)


def _suite(root: Path) -> Path:
    for task_id in ("alpha", "beta"):
        write_task(root, task_id, form="probe")
    info = json.loads((root / "beta" / "info.json").read_text())
    info.update(split="main", publication_date="2025-05-01", year=2025)
    (root / "beta" / "info.json").write_text(json.dumps(info))
    for task in load_tasks(root, strict=True).tasks:
        assert build_fixtures(task, check=False).ok
    return root


def test_evaluate_defaults_to_runs_model_keeps_predictions_and_honours_selection(tmp_path):
    suite = _suite(tmp_path / "suite")
    preds = tmp_path / "elsewhere" / "my-preds.jsonl"
    preds.parent.mkdir()
    rows = [{"instance_id": f"{t}/1", "model": "m", "functions": {"calc/ops.py": {"add_scaled": RIGHT}}}
            for t in ("alpha", "beta")]
    preds.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    res = cli("evaluate", "--predictions", str(preds), "--tasks", str(suite), "-t", "beta", "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    run = tmp_path / "runs" / "m"  # the documented default, not the predictions file's folder
    assert not (preds.parent / "evaluations.jsonl").exists()
    assert (run / "predictions.jsonl").read_text() == preds.read_text()
    evals = [json.loads(line) for line in (run / "evaluations.jsonl").read_text().splitlines()]
    assert [(e["instance_id"], e["status"]) for e in evals] == [("beta/1", "passed")]  # alpha not touched
    # report honours the split; judge/report find the predictions in the run folder
    lite = cli("report", str(run), "--tasks", str(suite), "--split", "lite", cwd=tmp_path)
    assert lite.returncode == 2 and "no evaluations of the selected" in lite.stderr
    main = json.loads(cli("report", str(run), "--tasks", str(suite), "--split", "main", "--json",
                          cwd=tmp_path).stdout)
    assert [s["implementations"] for s in main["scores"]] == [1]


def test_since_adds_its_own_row_and_a_selection_of_nothing_is_an_error(tmp_path):
    suite = _suite(tmp_path / "suite")
    # no --split: a new run takes the main split; -t or --split all widen it (resuming adds the rest)
    res = cli("run", "--model", "reference", "--tasks", str(suite), "--run-dir", "r", cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    evals = [json.loads(line) for line in (tmp_path / "r" / "evaluations.jsonl").read_text().splitlines()]
    assert [e["instance_id"] for e in evals] == ["beta/1"]
    res = cli("run", "--model", "reference", "--tasks", str(suite), "--run-dir", "r", "--split", "all", cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    rep = json.loads(cli("report", "r", "--tasks", str(suite), "--since", "2025-01-01", "--json",
                         cwd=tmp_path).stdout)
    rows = {s["subset"]: s["implementations"] for s in rep["scores"]}
    assert rows == {"all": 2, "split=lite": 1, "split=main": 1, "since=2025-01-01": 1}
    none = cli("tasks", "list", "--tasks", str(suite), "-t", "gamma*", cwd=tmp_path)
    assert none.returncode == 2 and "no implementation matches" in none.stderr


def test_judge_run_and_agreement_are_sub_commands(tmp_path):
    suite = _suite(tmp_path / "suite")
    assert cli("run", "--model", "reference", "--tasks", str(suite), "-t", "alpha", "--run-dir", "r",
               cwd=tmp_path).returncode == 0
    script = tmp_path / "judge.jsonl"
    script.write_text(json.dumps({"content": json.dumps({"category": 3, "rationale": "same as the reference"})})
                      + "\n")
    res = cli("judge", "run", "r", "--tasks", str(suite), "-t", "alpha", "--judge", "fake",
              "--fake-script", str(script), cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    judged = [json.loads(line) for line in (tmp_path / "r" / "judgments.jsonl").read_text().splitlines()]
    assert [(j["instance_id"], j["category"]) for j in judged] == [("alpha/1", 3)]
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"annotator": "ann", "instance_id": "alpha/1", "model": "reference",
                                  "category": 3}) + "\n")
    agree = json.loads(cli("judge", "agreement", "r", "--labels", str(labels), "--json", cwd=tmp_path).stdout)
    assert any(row["n"] == 1 and row["accuracy"] == 1.0 for row in agree["pairs"])
    assert agree["fleiss"] is None  # one annotator: no Fleiss' kappa
