"""Judging a run with the fake judge: validated categories, failures recorded as such, resumable, blind to tests."""

from __future__ import annotations

from lmrbench.jsonl import JsonlWriter
from lmrbench.judge.run import JUDGE_PROMPT_VERSION, judge_run, load_judgments, majority
from lmrbench.models.base import Message, ModelError
from lmrbench.models.fake import FakeModel
from lmrbench.records import JudgmentStatus, Prediction

RIGHT = "def add_scaled(a, b, k):\n    return [x + k * y for x, y in zip(a, b)]\n"
WRONG = "def add_scaled(a, b, k):\n    return [x - k * y for x, y in zip(a, b)]\n"


def write_predictions(run, samples):
    writer = JsonlWriter(run / "predictions.jsonl")
    for i, code in enumerate(samples):
        writer.write(Prediction(instance_id="toy/1", model="cand", sample=i,
                                functions={"calc/ops.py": {"add_scaled": code}}, meta={"solver": "prompt"}))


def verdict_by_code(messages: list[Message]) -> str:
    user = messages[-1].content
    candidate = user.split("# Candidate implementation")[1]
    if "x + k * y" in candidate:
        return '{"category": 3, "rationale": "Matches the reference."}'
    return 'Verdict:\n```json\n{"category": 1, "rationale": "Subtracts instead of adding."}\n```'


def test_judge_run_records_validated_categories_and_resumes(toy_tasks, tmp_path):
    run = tmp_path / "run"
    write_predictions(run, [RIGHT, WRONG])
    judge = FakeModel(verdict_by_code, name="fake-judge")
    first = judge_run(run, toy_tasks, [judge])  # no evaluations exist: the judge cannot depend on them
    assert sorted(j.category for j in first) == [1, 3]
    assert all(j.prompt_version == JUDGE_PROMPT_VERSION and j.judge == "fake-judge" for j in first)
    prompt = judge.requests[0][-1].content
    assert "# Reference implementation" in prompt and "# Method description" in prompt
    assert "def add_scaled" in prompt.split("# Candidate implementation")[1]
    assert judge_run(run, toy_tasks, [judge]) == []  # cached and resumable
    assert len(judge.requests) == 2


def test_failures_are_recorded_never_graded_and_provider_errors_retried(toy_tasks, tmp_path):
    run = tmp_path / "run"
    write_predictions(run, [RIGHT])
    broken = FakeModel([ModelError("HTTP 500", transient=True)], name="j1")
    refuser = FakeModel(["I cannot evaluate this."], name="j2")
    garbled = FakeModel(['{"category": 7, "rationale": "?"}'], name="j3")
    results = {j.judge: j for j in judge_run(run, toy_tasks, [broken, refuser, garbled], concurrency=1)}
    assert results["j1"].status is JudgmentStatus.PROVIDER_ERROR and results["j1"].category is None
    assert results["j2"].status is JudgmentStatus.REFUSAL and results["j2"].category is None
    assert results["j3"].status is JudgmentStatus.PARSE_ERROR and results["j3"].category is None
    again = judge_run(run, toy_tasks, [FakeModel(['{"category": 3, "rationale": "ok"}'], name="j1"), refuser,
                                       garbled])
    assert [j.judge for j in again] == ["j1"] and again[0].category == 3


def test_majority_vote_and_ties():
    from lmrbench.records import Judgment

    def j(cat, name):
        return Judgment(instance_id="t/1", model="m", sample=0, judge=name, prompt_version="v", key=name,
                        status=JudgmentStatus.OK, category=cat, rationale="r")

    assert majority([j(3, "a"), j(3, "b"), j(1, "c")]) == 3
    assert majority([j(3, "a"), j(2, "b")]) == 2  # a tie goes to the stricter category
    assert majority([]) is None
    assert load_judgments(__import__("pathlib").Path("/nonexistent")) == []


def test_every_sample_and_model_is_judged_even_with_the_same_code(toy_tasks, tmp_path):
    run = tmp_path / "run"
    write_predictions(run, [RIGHT])
    judge = FakeModel(verdict_by_code, name="fake-judge")
    assert [(j.model, j.sample) for j in judge_run(run, toy_tasks, [judge])] == [("cand", 0)]
    writer = JsonlWriter(run / "predictions.jsonl")  # a second sample and another model, with the same code
    same = {"calc/ops.py": {"add_scaled": RIGHT}}
    writer.write(Prediction(instance_id="toy/1", model="cand", sample=1, functions=same))
    writer.write(Prediction(instance_id="toy/1", model="other", functions=same))
    again = judge_run(run, toy_tasks, [judge])
    assert sorted((j.model, j.sample) for j in again) == [("cand", 1), ("other", 0)]
    assert len({j.key for j in load_judgments(run / "judgments.jsonl")}) == 3
    assert judge_run(run, toy_tasks, [judge]) == []  # and each is cached under its own key


def test_the_judge_sees_the_helpers_the_answer_added(toy_tasks, tmp_path):
    run = tmp_path / "run"
    helper = "def _scale(k, y):\n    return k * y\n"
    code = "def add_scaled(a, b, k):\n    return [x + _scale(k, y) for x, y in zip(a, b)]\n"
    JsonlWriter(run / "predictions.jsonl").write(Prediction(
        instance_id="toy/1", model="cand", functions={"calc/ops.py": {"add_scaled": code, "<module>": helper}}))
    judge = FakeModel(['{"category": 3, "rationale": "ok"}'], name="fake-judge")
    judge_run(run, toy_tasks, [judge])
    candidate = judge.requests[0][-1].content.split("# Candidate implementation")[1]
    assert "def add_scaled" in candidate and "def _scale(k, y)" in candidate


def test_a_task_without_a_golden_file_is_judged_no_reference_not_a_crash(toy_tasks):
    from lmrbench.judge.run import judge_one, reference_code
    from lmrbench.models.fake import FakeModel
    from lmrbench.records import JudgmentStatus, Prediction

    task = toy_tasks.task("toy")
    impl = task.implementation(1).model_copy(update={"golden_file": None})
    assert reference_code(impl) is None
    code = "def add_scaled(a, b, k):\n    return a\n"
    pred = Prediction(instance_id="toy/1", model="m", functions={"calc/ops.py": {"add_scaled": code}})
    judge = FakeModel(['{"category": 3, "rationale": "never asked"}'], name="j")
    j = judge_one(task, impl, pred, judge, code)
    assert j.status is JudgmentStatus.NO_REFERENCE and j.category is None
