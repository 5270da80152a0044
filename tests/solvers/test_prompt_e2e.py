"""The prompt solver driven by the deterministic fake on the real built-in tasks."""

from __future__ import annotations

from lmrbench.evaluate.batch import evaluate_predictions, latest_evaluations, load_predictions
from lmrbench.generate import generate_with_model
from lmrbench.models.fake import FakeModel
from lmrbench.papers import paper_text
from lmrbench.records import Outcome, Status
from lmrbench.solvers.prompt import PROMPT_VERSION, build_prompt
from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.source import extract

TASK = "dpo"


def _answer(code: str) -> str:
    return f"Here is the implementation following the paper.\n\n```python\n{code}```\n\nLet me know!"


def _run(tmp_path, answer: str):
    ts = load_tasks()
    fake = FakeModel([answer], name="fake/scripted")
    prog = generate_with_model(ts, fake, "prompt", tmp_path, concurrency=1, patterns=[f"{TASK}/1"],
                               papers_dir=tmp_path / "no-papers")
    preds, invalid = load_predictions(tmp_path / "predictions.jsonl", ts)
    evaluate_predictions(preds, ts, tmp_path / "evaluations.jsonl", tmp_path / "w", tmp_path / "l",
                         extra=invalid)
    return prog, preds, latest_evaluations(tmp_path / "evaluations.jsonl"), fake


def test_prompt_contains_paper_goal_context_and_instruction():
    ts = load_tasks()
    task = ts.task(TASK)
    impl = task.implementation(1)
    paper = paper_text(task)
    user = build_prompt(task, impl, paper)[1].content
    assert paper.text.strip()[:200] in user
    assert (task.repo_dir / impl.goal_file).read_text().strip()[:200] in user
    assert impl.instruction.strip() in user
    for rel in impl.retrieval_context:
        assert f"`{rel}`" in user


def test_fake_answering_with_reference_passes(tmp_path):
    ts = load_tasks()
    impl = ts.task(TASK).implementation(1)
    assert impl.golden_file is not None
    code = "".join(extract(impl.golden_file.read_text(), t) for t in impl.targets)
    prog, preds, evals, _fake = _run(tmp_path, _answer(code))
    assert prog.done == 1 and prog.failures == 0 and prog.usage.calls == 1
    assert preds[0].meta.prompt_version == PROMPT_VERSION and preds[0].meta.paper_source == "description"
    assert [e.status for e in evals] == [Status.PASSED]


def test_fake_answering_with_a_wrong_variant_fails(tmp_path):
    ts = load_tasks()
    wrong = sorted(ts.task(TASK).wrong_dir(1).glob("*.py"))[0]
    _, _, evals, _ = _run(tmp_path, _answer(wrong.read_text()))
    assert [e.status for e in evals] == [Status.FAILED]


def test_answer_without_code_is_an_invalid_prediction(tmp_path):
    _, preds, evals, _ = _run(tmp_path, "I am sorry, I cannot do that.")
    assert preds[0].error and preds[0].error.startswith("no usable code")
    assert preds[0].meta.outcome is Outcome.NO_CODE
    assert [e.status for e in evals] == [Status.INVALID]


def test_withheld_paper_sends_only_the_title_and_is_recorded(tmp_path):
    ts = load_tasks()
    task = ts.task(TASK)
    impl = task.implementation(1)
    assert impl.golden_file is not None
    code = "".join(extract(impl.golden_file.read_text(), t) for t in impl.targets)
    fake = FakeModel([_answer(code)], name="fake/no-paper")
    generate_with_model(ts, fake, "prompt", tmp_path, concurrency=1, patterns=[f"{TASK}/1"], paper="withheld")
    preds, _ = load_predictions(tmp_path / "predictions.jsonl", ts)
    assert preds[0].meta.paper_source == "withheld"
    user = fake.requests[0][1].content
    description = paper_text(task).text.strip()
    assert description[:200] not in user and f"# Paper: {task.paper_name}" in user
    assert impl.instruction.strip() in user
