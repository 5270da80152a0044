"""Every `--json` output and report.json is strict JSON: NaN and infinities are written as null."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from lmrbench.cli import app
from lmrbench.jsonl import JsonlWriter
from lmrbench.records import Evaluation, Judgment, JudgmentStatus, Prediction, Status
from lmrbench.report.strict_json import dumps


def strict_loads(text: str) -> object:
    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_floats_become_null():
    data = {"a": math.nan, "b": [math.inf, 1.5], "c": (-math.inf,), "d": {"e": 2}}
    assert strict_loads(dumps(data)) == {"a": None, "b": [None, 1.5], "c": [None], "d": {"e": 2}}
    with pytest.raises(ValueError, match="NaN"):
        strict_loads(json.dumps(data))  # what the plain dump wrote


def test_report_json_with_an_undefined_agreement_is_strict(toy_root, tmp_path):
    run = tmp_path / "run"
    JsonlWriter(run / "predictions.jsonl").write(Prediction(
        instance_id="toy/1", model="cand", functions={"calc/ops.py": {"add_scaled": "def add_scaled(a, b, k):\n"
                                                                                    "    return a\n"}}))
    JsonlWriter(run / "evaluations.jsonl").write(Evaluation(
        instance_id="toy/1", task_id="toy", index=1, model="cand", sample=0, key="k", status=Status.FAILED,
        tests_passed=0, tests_total=3))
    JsonlWriter(run / "judgments.jsonl").write(Judgment(
        instance_id="toy/1", model="cand", sample=0, judge="j", prompt_version="judge-v1", key="jk",
        status=JudgmentStatus.OK, category=1, rationale="wrong"))
    labels = tmp_path / "labels.jsonl"  # a label for another model: no common item, so accuracy is 0/0
    labels.write_text('{"annotator": "ann", "instance_id": "toy/1", "model": "elsewhere", "sample": 0, '
                      '"category": 3}\n')
    res = CliRunner().invoke(app, ["report", str(run), "--labels", str(labels), "--tasks", str(toy_root), "--json"])
    assert res.exit_code == 0, res.output
    printed = strict_loads(res.stdout)
    assert isinstance(printed, dict) and printed["agreement"][0]["n"] == 0
    assert printed["agreement"][0]["accuracy"] is None and printed["agreement"][0]["kappa"] is None
    assert strict_loads((run / "report.json").read_text()) == printed
