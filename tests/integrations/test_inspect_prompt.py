"""The Inspect prompt task, driven offline by Inspect's mock model scripted per prompt: every lite implementation
answered with its reference is scored correct; the scorer's verdicts equal `lmrbench evaluate`'s on the same
answers, wrong ones included; `lmrbench predictions from-inspect` gives back what was scored."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import CORRECT, INCORRECT
from typer.testing import CliRunner

from lmrbench.cli import app
from lmrbench.integrations.inspect.dataset import Selection, dataset, patterns
from lmrbench.integrations.inspect.logs import predictions_from_log
from lmrbench.models.base import ModelSettings
from lmrbench.papers import WITHHELD, paper_text
from lmrbench.records import Outcome, Prediction, Status
from lmrbench.solvers.builtin import reference_prediction
from lmrbench.solvers.prompt import build_prompt
from lmrbench.tasks.loader import TaskSet, load_tasks
from lmrbench.tasks.schema import Implementation, Task
from lmrbench.tasks.source import extract

Respond = Callable[[list[ChatMessage], object, object, GenerateConfig], ModelOutput]


def _fenced(code: str) -> str:
    return f"Here is the implementation, following the paper.\n\n```python\n{code.rstrip()}\n```\n"


def reference_answer(task: Task, impl: Implementation) -> str:
    """The built-in reference solver's code, in the one python block the prompt asks for."""
    pred = reference_prediction(task, impl)
    assert pred.functions is not None, pred.error
    return _fenced("\n\n".join(pred.functions[impl.goal_file].values()))


def stub_answer(task: Task, impl: Implementation) -> str:
    """The masked definitions as they are (they raise NotImplementedError)."""
    goal = (task.repo_dir / impl.goal_file).read_text(encoding="utf-8")
    return _fenced("\n\n".join(extract(goal, t) for t in impl.targets))


def user_prompt(task: Task, impl: Implementation) -> str:
    return build_prompt(task, impl, paper_text(task))[1].content


def scripted(answers: dict[str, str]) -> Respond:
    """Inspect's mock model answering each prompt (the user message, as our prompt builder writes it) by table."""

    def respond(messages: list[ChatMessage], tools: object, choice: object, config: GenerateConfig) -> ModelOutput:
        user = next(m.text for m in messages if m.role == "user")
        out = ModelOutput.from_content("mockllm/model", answers[user])
        out.usage = ModelUsage(input_tokens=len(user) // 4, output_tokens=len(out.completion) // 4,
                               total_tokens=(len(user) + len(out.completion)) // 4)
        return out

    return respond


def run_inspect(task_args: dict[str, object], answers: dict[str, str], log_dir: Path) -> EvalLog:
    """`inspect eval lmrbench/prompt -T ...` with the scripted mock model (found through the entry point)."""
    model = get_model("mockllm/model", custom_outputs=scripted(answers))
    (log,) = inspect_eval("lmrbench/prompt", task_args=task_args, model=model, log_dir=str(log_dir),
                          display="none")
    assert log.status == "success", log.error
    return log


def _scores(log: EvalLog) -> dict[str, dict]:
    out = {}
    for s in log.samples or []:
        (score,) = s.scores.values()
        out[s.metadata["instance_id"]] = {"value": score.value, "explanation": score.explanation, **score.metadata}
    return out


def test_dataset_holds_the_exact_prompt_and_the_selection():
    ts = load_tasks()
    lite = ts.restrict(None, "lite")
    samples = list(dataset(Selection(split="lite"), "prompt"))
    assert [s.metadata["instance_id"] for s in samples] == [i.instance_id for i in lite.instances()]
    first = samples[0]
    task, impl = ts.resolve(first.metadata["instance_id"])
    want = build_prompt(task, impl, paper_text(task))
    assert [(m.role, m.text) for m in first.input] == [(m.role, m.content) for m in want]
    assert first.id == impl.instance_id.replace("/", "__") and first.metadata["prompt_version"] == "prompt-v1"
    main = ts.restrict(None, "main")
    assert len(dataset(Selection(), "prompt")) == len(main.instances())  # no split, no task: main
    picked = dataset(Selection(task=patterns(f"{impl.task_id},nothing-else")), "prompt")
    assert [s.metadata["instance_id"] for s in picked] == [i.instance_id for i in ts.task(impl.task_id).implementations]
    withheld = dataset(Selection(task=[impl.instance_id], paper="withheld"), "prompt")[0]
    assert WITHHELD in withheld.input[1].text and withheld.metadata["paper_source"] == "withheld"
    from lmrbench.integrations.inspect.tasks import prompt

    config = prompt(task=impl.instance_id).config  # lmrbench's model defaults unless Inspect's options say else
    assert (config.temperature, config.max_tokens) == (ModelSettings().temperature, ModelSettings().max_tokens)


@pytest.mark.proof  # every lite implementation through Inspect: `make validate` (test_scorer_verdicts_... below
# runs a mixed sample of the lite split through Inspect in `make test`)
def test_mock_model_answering_with_the_references_scores_every_lite_implementation_correct(tmp_path):
    ts = load_tasks().restrict(None, "lite")
    answers = {user_prompt(ts.task(i.task_id), i): reference_answer(ts.task(i.task_id), i) for i in ts.instances()}
    start = time.monotonic()
    log = run_inspect({"split": "lite", "workers": 2}, answers, tmp_path / "logs")
    seconds = time.monotonic() - start
    scores = _scores(log)
    assert sorted(scores) == sorted(i.instance_id for i in ts.instances())
    wrong = {k: v["explanation"] for k, v in scores.items() if v["value"] != CORRECT}
    assert wrong == {}
    for v in scores.values():
        assert v["status"] == "passed" and v["tests_passed"] == v["tests_total"] > 0
    assert log.results is not None and log.results.scores[0].metrics["accuracy"].value == 1.0
    print(f"\n{len(scores)} lite implementations scored in {seconds:.1f} s")


def _answer(kind: str, task: Task, impl: Implementation) -> str:
    if kind == "reference":
        return reference_answer(task, impl)
    if kind == "stub":
        return stub_answer(task, impl)
    if kind == "wrong":
        return _fenced(sorted(task.wrong_dir(impl.index).glob("*.py"))[0].read_text(encoding="utf-8"))
    return "I would need more details before I can write this."


def _mixed_answers(ts: TaskSet) -> tuple[dict[str, str], dict[str, str]]:
    """Per instance: the reference, a hand-written wrong variant (tasks/<id>/wrong/), the stub, or prose."""
    kinds, answers = {}, {}
    for n, impl in enumerate(ts.instances()):
        task = ts.task(impl.task_id)
        kind = ["reference", "wrong", "stub", "no code"][n % 4]
        if kind == "wrong" and not any(task.wrong_dir(impl.index).glob("*.py")):
            kind = "stub"
        answers[user_prompt(task, impl)] = _answer(kind, task, impl)
        kinds[impl.instance_id] = kind
    return answers, kinds


PARITY = ["dpo", "simpo", "lion", "mrl"]


def test_scorer_verdicts_equal_lmrbench_evaluate_and_from_inspect_round_trips(tmp_path):
    ts = load_tasks().restrict(PARITY)
    answers, kinds = _mixed_answers(ts)
    assert set(kinds.values()) == {"reference", "wrong", "stub", "no code"}
    log = run_inspect({"task": ",".join(PARITY), "workers": 2}, answers, tmp_path / "logs")
    scores = _scores(log)
    assert {k: v["status"] for k, v in scores.items() if kinds[k] == "reference"} == \
        {k: "passed" for k in kinds if kinds[k] == "reference"}
    assert all(v["value"] == INCORRECT for k, v in scores.items() if kinds[k] != "reference")
    assert all(v["status"] == "invalid_prediction" for k, v in scores.items() if kinds[k] == "no code")

    preds_file = tmp_path / "predictions.jsonl"
    res = CliRunner().invoke(app, ["predictions", "from-inspect", log.location, "--out", str(preds_file)])
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in preds_file.read_text().splitlines()]
    assert sorted(p["instance_id"] for p in lines) == sorted(kinds)
    assert {p["model"] for p in lines} == {"mockllm/model"}
    scored = {k: Prediction.model_validate(v["prediction"]).content_hash() for k, v in scores.items()}
    assert {p["instance_id"]: Prediction.model_validate(p).content_hash() for p in lines} == scored
    res = CliRunner().invoke(app, ["evaluate", "--predictions", str(preds_file), "--run-dir", str(tmp_path / "run"),
                                   "--workers", "2", "--json"])
    assert res.exit_code == 0, res.output
    ours = {json.loads(line)["instance_id"]: json.loads(line) for line in
            (tmp_path / "run" / "evaluations.jsonl").read_text().splitlines()}
    assert {k: (v["status"], v["tests_passed"], v["tests_total"]) for k, v in ours.items()} == \
        {k: (v["status"], v["tests_passed"], v["tests_total"]) for k, v in scores.items()}
    assert {k: v["value"] == CORRECT for k, v in scores.items()} == {k: v["status"] == Status.PASSED.value
                                                                      for k, v in ours.items()}


def test_from_inspect_re_extracts_unscored_prompt_samples_exactly(tmp_path):
    """A log (.json this time) scored without our scorer: the completion is extracted as the scorer would."""
    ts = load_tasks().restrict(["dpo"])
    impl = ts.instances()[0]
    answers = {user_prompt(ts.task("dpo"), impl): reference_answer(ts.task("dpo"), impl)}
    model = get_model("mockllm/model", custom_outputs=scripted(answers))
    from lmrbench.integrations.inspect.tasks import prompt

    task = prompt(task="dpo/1")
    task.scorer = None
    (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none", score=False, log_format="json")
    assert log.status == "success" and log.location.endswith(".json")
    got = predictions_from_log(Path(log.location), load_tasks())
    assert got.problems == [] and got.model == "mockllm/model"
    (pred,) = got.predictions
    assert pred.functions == reference_prediction(ts.task("dpo"), impl).functions
    assert pred.meta.answer == answers[user_prompt(ts.task("dpo"), impl)]


def test_from_inspect_refuses_a_file_that_is_not_a_log(tmp_path):
    bad = tmp_path / "not-a-log.json"
    bad.write_text('{"hello": 1}')
    res = CliRunner().invoke(app, ["predictions", "from-inspect", str(bad), "--out", str(tmp_path / "p.jsonl")])
    assert res.exit_code == 2
    assert "not a readable Inspect log" in res.output
    assert not (tmp_path / "p.jsonl").exists()



def test_from_inspect_records_a_sample_inspect_could_not_finish_as_model_error(tmp_path):
    """The toy tasks (no torch): toy/1 answered with its reference, toy2/1's request fails."""
    from tests.conftest import write_task

    root = tmp_path / "suite"
    root.mkdir()
    write_task(root, "toy")
    info = write_task(root, "toy2") / "info.json"
    info.write_text(info.read_text().replace("Implement add_scaled in calc/ops.py.", "The second toy."))
    ts = load_tasks(root)
    answers = {user_prompt(ts.task("toy"), ts.task("toy").implementation(1)):
               reference_answer(ts.task("toy"), ts.task("toy").implementation(1))}
    respond = scripted(answers)

    def flaky(messages: list[ChatMessage], tools: object, choice: object, config: GenerateConfig) -> ModelOutput:
        if any("The second toy." in m.text for m in messages if m.role == "user"):
            raise RuntimeError("provider unavailable")
        return respond(messages, tools, choice, config)

    model = get_model("mockllm/model", custom_outputs=flaky)
    (log,) = inspect_eval("lmrbench/prompt", task_args={"tasks": str(root), "split": "all"}, model=model,
                          log_dir=str(tmp_path / "logs"), display="none", fail_on_error=False, retry_on_error=0)
    got = predictions_from_log(Path(log.location), ts)
    preds = {p.instance_id: p for p in got.predictions}
    assert got.problems == [] and sorted(preds) == ["toy/1", "toy2/1"]
    assert preds["toy/1"].functions is not None and preds["toy/1"].error is None
    assert preds["toy2/1"].meta.outcome is Outcome.MODEL_ERROR
    assert "provider unavailable" in (preds["toy2/1"].error or "")
