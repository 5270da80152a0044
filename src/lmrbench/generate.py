"""The generation stage: predictions.jsonl from a solver, resumable item by item."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lmrbench.evaluate.models import Prediction
from lmrbench.jsonl import JsonlWriter, read_lines
from lmrbench.solvers.builtin import reference_prediction, stub_prediction
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Implementation, Task

BuiltinSolver = Callable[[Task, Implementation, int], Prediction]
BUILTIN_MODELS: dict[str, BuiltinSolver] = {"reference": reference_prediction, "stub": stub_prediction}


def done_items(path: Path) -> set[tuple[str, str, int]]:
    """(instance, model, sample) already in a predictions file."""
    out = set()
    for _, obj, _ in read_lines(path):
        if obj and {"instance_id", "model"} <= obj.keys():
            out.add((str(obj["instance_id"]), str(obj["model"]), int(obj.get("sample", 0))))
    return out


def generate_builtin(tasks: TaskSet, model: str, out: Path, samples: int = 1,
                     patterns: list[str] | None = None) -> int:
    """Write predictions of a built-in model; returns how many were new."""
    if model not in BUILTIN_MODELS:
        raise KeyError(f"unknown built-in model '{model}'; choose one of {sorted(BUILTIN_MODELS)}")
    solver = BUILTIN_MODELS[model]
    done = done_items(out)
    writer = JsonlWriter(out)
    new = 0
    for impl in tasks.select(patterns):
        task = tasks.task(impl.task_id)
        for sample in range(samples):
            if (impl.instance_id, model, sample) in done:
                continue
            writer.write(solver(task, impl, sample))
            new += 1
    return new
