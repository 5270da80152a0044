"""The answer corpus: every realistic answer gives exactly the expected goal file through the prompt path, and the
same file, as a revised workspace, comes back unchanged through `predictions from-dirs`; the prompt path, the
from-dirs path and a plain diff give the same verdict."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from lmrbench.evaluate.apply import apply_prediction, make_workspace
from lmrbench.evaluate.runner import evaluate_one
from lmrbench.external import export_workspaces, prediction_from_dir
from lmrbench.models.fake import FakeModel
from lmrbench.papers import paper_text
from lmrbench.records import Prediction, Status
from lmrbench.solvers.prompt import prompt_prediction
from lmrbench.tasks.loader import TaskSet, load_tasks
from lmrbench.tasks.source import mask
from tests.solvers.corpus_task import CORPUS, CRLF_TASK, GOALS, Case, goal_text, load_cases, write_corpus_task

CASES = load_cases()
VALID = [c for c in CASES if c.expected is not None]


@pytest.fixture(scope="module")
def corpus_tasks(tmp_path_factory: pytest.TempPathFactory) -> TaskSet:
    root = tmp_path_factory.mktemp("corpus-suite")
    write_corpus_task(root)
    write_corpus_task(root, CRLF_TASK, crlf=True)
    return load_tasks(root, strict=True)


def _prompt_path(tasks: TaskSet, case: Case, papers: Path) -> Prediction:
    task, impl = tasks.resolve(case.instance_id)
    return prompt_prediction(task, impl, FakeModel([case.answer], name="fake/corpus"), paper_text(task, papers))


def _applied(tasks: TaskSet, case: Case, pred: Prediction, where: Path) -> str:
    task, _ = tasks.resolve(case.instance_id)
    ws = make_workspace(task, where)
    apply_prediction(pred, ws)
    return (ws / case.goal_file).read_bytes().decode()


def test_the_corpus_is_large_and_varied():
    assert len(CASES) >= 40
    assert {c.goal for c in CASES} == set(GOALS)
    assert sum(c.error is not None for c in CASES) >= 3 and any(c.crlf for c in CASES)


@pytest.mark.parametrize("goal", sorted(GOALS))
def test_goal_files_are_the_masked_references(goal):
    text = (CORPUS / "golden" / f"{goal}.py.txt").read_text()
    for target in GOALS[goal][1]:
        text = mask(text, target)
    assert text == goal_text(goal)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_prompt_path_splices_exactly_the_expected_file(corpus_tasks, case, tmp_path):
    pred = _prompt_path(corpus_tasks, case, tmp_path / "no-papers")
    if case.error is not None:
        assert pred.error is not None and case.error in pred.error
        return
    assert pred.error is None, pred.error
    assert _applied(corpus_tasks, case, pred, tmp_path / "ws") == case.expected


@pytest.mark.parametrize("case", VALID, ids=[c.name for c in VALID])
def test_from_dirs_gives_back_the_same_file(corpus_tasks, case, tmp_path):
    [ws] = export_workspaces(corpus_tasks, tmp_path / "export", [case.instance_id])
    assert case.expected is not None
    (ws / case.goal_file).write_bytes(case.expected.encode())
    pred = prediction_from_dir(corpus_tasks, ws, "outside")
    assert pred.functions is not None  # targets plus module additions reproduce the file: no diff needed
    assert _applied(corpus_tasks, case, pred, tmp_path / "ws") == case.expected


# The three shapes (a constant, an import, a helper method), a truncated answer and a wrong one.
VERDICT_CASES = ["02-module-constant", "03-added-import", "32-helper-method-without-class", "45-truncated-class",
                 "47-wrong-hinge"]


def test_prompt_from_dirs_and_diff_give_the_same_verdict(corpus_tasks, tmp_path):
    by_name = {c.name: c for c in CASES}
    verdicts = {}
    for name in VERDICT_CASES:
        case = by_name[name]
        task, impl = corpus_tasks.resolve(case.instance_id)
        prompt = _prompt_path(corpus_tasks, case, tmp_path / "no-papers")
        final = case.expected
        assert final is not None
        [ws] = export_workspaces(corpus_tasks, tmp_path / name, [case.instance_id])
        (ws / case.goal_file).write_bytes(final.encode())
        from_dirs = prediction_from_dir(corpus_tasks, ws, "outside")
        old = goal_text(case.goal).splitlines(keepends=True)
        plain = Prediction(instance_id=case.instance_id, model="diff", diff="".join(difflib.unified_diff(
            old, final.splitlines(keepends=True), f"a/{case.goal_file}", f"b/{case.goal_file}")))
        verdicts[name] = [(e.status, e.tests_passed, e.tests_total) for e in (
            evaluate_one(task, impl, pred, tmp_path / f"w-{name}-{i}", tmp_path / "logs")
            for i, pred in enumerate((prompt, from_dirs, plain)))]
    for name, (prompt, from_dirs, plain) in verdicts.items():
        assert prompt == from_dirs == plain, name
        assert prompt[2] > 0 and (prompt[0] is Status.FAILED if "wrong" in name else prompt[1] == prompt[2]), name
    assert [v[0][0] for v in verdicts.values()] == [Status.PASSED] * 4 + [Status.FAILED]
