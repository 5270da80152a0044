"""The HTML report: built from real run files, opened in a real headless Chromium, offline."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from lmrbench.evaluate.batch import evaluate_predictions, load_predictions
from lmrbench.judge.run import judge_run
from lmrbench.models.fake import FakeModel
from lmrbench.report.bundle import collect, write_all
from tests.judge.test_judge_run import RIGHT, WRONG, verdict_by_code, write_predictions

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-extensions", "--enable-logging=stderr", "--v=0"]


@pytest.fixture
def report_dir(toy_tasks, tmp_path):
    run = tmp_path / "run"
    write_predictions(run, [RIGHT, RIGHT, WRONG])
    preds, invalid = load_predictions(run / "predictions.jsonl", toy_tasks)
    evaluate_predictions(preds, toy_tasks, run / "evaluations.jsonl", run / "w", run / "logs", extra=invalid)
    judge_run(run, toy_tasks, [FakeModel(verdict_by_code, name="fake-judge")])
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(f'{{"annotator": "ann", "instance_id": "toy/1", "model": "cand", "sample": {i}, '
                              f'"category": {c}}}\n' for i, c in enumerate([3, 2, 1])))
    from lmrbench.judge.agreement import load_labels

    data = collect([run], toy_tasks, load_labels(labels))
    write_all(data, tmp_path / "out")
    return tmp_path / "out", data


def test_scores_in_the_report(report_dir):
    out, data = report_dir
    [score] = data.scores
    assert score.samples == 3 and score.status_counts["passed"] == 2
    assert abs(score.pass_at_k[1] - 2 / 3) < 1e-12 and score.pass_at_k[2] == 1.0
    assert score.judge_distribution == {"3": 2, "1": 1}
    assert score.judge_vs_tests["3"] == {"passed": 2, "not_passed": 0}
    assert data.agreement[0].n == 3 and data.agreement[0].accuracy == 2 / 3
    md = (out / "report.md").read_text()
    assert "pass rate (95% CI)" in md and "| cand | prompt | 1 | 66.7%" in md
    assert (out / "report.csv").read_text().splitlines()[1].startswith("run,cand,prompt,1,3,0.666667")


def test_html_is_self_contained(report_dir):
    html = (report_dir[0] / "report.html").read_text()
    assert not re.search(r"""(src|href)=["']https?://""", html)
    assert "<script src" not in html and "<link" not in html


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None and not sys.platform.startswith("linux"), reason="needs Linux")
def test_report_renders_in_headless_chromium(report_dir, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.fail("chromium is not installed: run scripts/install-system-tools.sh (Debian package 'chromium')")
    page = (report_dir[0] / "report.html").as_uri()
    profile = tmp_path / "profile"
    shot = tmp_path / "shot.png"
    dom = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=3000",
                          "--dump-dom", page], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-ready="2"' in dom.stdout  # the page's script ran to the end and found both charts
    assert re.search(r'<th class="sorted-(asc|desc)">pass rate</th>', dom.stdout)  # sortable table is live
    assert dom.stdout.count("<rect") >= 1 and "<polyline" in dom.stdout
    assert "judge-vs-tests" in dom.stdout and "agreement" in dom.stdout
    console = [ln for ln in dom.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    assert console == [], console
    res = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1200,1600",
                          f"--screenshot={shot}", page], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and shot.stat().st_size > 10_000
