"""The generation stage never stops on one item: every item is recorded, whatever the model answered or the
solver raised, with several threads extracting code at once."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

from lmrbench.evaluate.batch import evaluate_predictions, latest_evaluations, load_predictions
from lmrbench.generate import GenerateProgress, done_items, generate, generate_with_model
from lmrbench.jsonl import read_records
from lmrbench.models.base import Message
from lmrbench.models.fake import FakeModel
from lmrbench.records import Outcome, Prediction, Status
from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.schema import Implementation, Task
from lmrbench.tasks.source import extract

SUITE = load_tasks().restrict(split="all")  # lite and main: nothing to fetch
HOSTILE = [
    "\ud800 lone surrogate \udfff",
    "```python\ndef f(:\n```",
    "```python\n" + "(" * 400 + ")" * 400 + "\n```",
    "```python\nx = '\x00'\n```",
    "```python\n" + "\n".join(f"def helper_{i}(): return {i}" for i in range(300)) + "\n```",
    "",
]


def _reference_answer(messages: list[Message]) -> str:
    """The golden targets of the implementation the prompt asks for, as a model would answer; every seventh
    implementation gets one of the hostile answers instead."""
    user = messages[-1].content
    goal = re.search(r"# File to complete\n\n### `([^`]+)`", user)
    impl = next(i for i in SUITE.instances() if goal and i.goal_file == goal.group(1) and i.instruction.strip() in user)
    n = sum(map(ord, impl.instance_id))
    if n % 7 == 0:
        return HOSTILE[n % len(HOSTILE)]
    return _golden_answer(impl.instance_id)


@cache  # each implementation is asked for three samples: extract its golden targets once
def _golden_answer(instance_id: str) -> str:
    _task, impl = SUITE.resolve(instance_id)
    assert impl.golden_file is not None
    golden = impl.golden_file.read_text()
    return "Here it is.\n```python\n" + "\n\n".join(extract(golden, t) for t in impl.targets) + "\n```\n"


def test_concurrency_8_over_200_answers_records_every_item(tmp_path):
    impls = [i for i in SUITE.instances() if i.targets and i.golden_file][:67]
    patterns = [i.instance_id for i in impls]
    prog = generate_with_model(SUITE, FakeModel(_reference_answer, name="fake/threads"), "prompt", tmp_path,
                               samples=3, concurrency=8, patterns=patterns, papers_dir=tmp_path / "no-papers")
    assert prog.total == prog.done == len(impls) * 3 >= 200
    recs = list(read_records(tmp_path / "predictions.jsonl"))
    assert all(r.obj is not None for r in recs), [r.error for r in recs if r.obj is None]
    keys = Counter((r.obj["instance_id"], r.obj["sample"]) for r in recs if r.obj)
    assert set(keys.values()) == {1} and len(keys) == len(impls) * 3
    outcomes = Counter(r.obj["meta"]["outcome"] for r in recs if r.obj)
    harness = [r.obj["error"] for r in recs if r.obj and r.obj["meta"]["outcome"] == Outcome.HARNESS_ERROR]
    assert harness == []
    assert outcomes[Outcome.DONE] > 150 and outcomes[Outcome.NO_CODE] > 0


@dataclass
class _Exploding:
    """A solver that breaks its promise (raises) for some items, the way a bug of ours would."""

    name: str = "exploding"

    def solve(self, task: Task, impl: Implementation, sample: int) -> Prediction:
        if impl.index == 1 and sample == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=1, after=2)")
        if sample == 2:
            return Prediction(instance_id=impl.instance_id, model=self.name, sample=sample,
                              error="no usable code: \ud800")
        return Prediction(instance_id=impl.instance_id, model=self.name, sample=sample, functions={})


def test_a_raising_solver_or_an_unwritable_prediction_is_that_items_error_and_is_retried(tmp_path):
    seen: list[Prediction] = []

    def tick(_p: GenerateProgress, pred: Prediction) -> None:
        seen.append(pred)

    prog = generate(SUITE, _Exploding(), tmp_path, samples=3, concurrency=4, patterns=["dpo/1", "hit/1"],
                    on_progress=tick)
    assert prog.done == prog.total == 6
    by_key = {(p.instance_id, p.sample): p for p in seen}
    raised = by_key[("dpo/1", 1)]
    assert raised.meta.outcome is Outcome.HARNESS_ERROR and "SystemError" in (raised.error or "")
    recs = [r.obj for r in read_records(tmp_path / "predictions.jsonl")]
    assert all(recs) and len(recs) == 6  # the invalid text of sample 2 is written readably, or as our error
    assert all(r["error"] for r in recs if r and r["sample"] == 2)
    # a harness error is not done: a resumed run makes that item again
    done = done_items(tmp_path / "predictions.jsonl")
    assert ("dpo/1", "exploding", 1) not in done and {("dpo/1", "exploding", 0), ("hit/1", "exploding", 0)} <= done


def test_a_harness_error_is_scored_like_a_provider_failure(tmp_path):
    generate(SUITE, _Exploding(), tmp_path, samples=2, concurrency=2, patterns=["dpo/1"])
    preds, invalid = load_predictions(tmp_path / "predictions.jsonl", SUITE)
    evaluate_predictions(preds, SUITE, tmp_path / "evaluations.jsonl", tmp_path / "w", tmp_path / "l", extra=invalid)
    by_sample = {e.sample: e for e in latest_evaluations(tmp_path / "evaluations.jsonl")}
    assert by_sample[1].status is Status.MODEL_ERROR and "harness error" in by_sample[1].reason
    assert by_sample[0].status is Status.FAILED  # the stub-like prediction of sample 0 is graded as usual
