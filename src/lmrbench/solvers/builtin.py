"""The built-in solvers that need no model: `reference` (the golden code) and `stub` (the masked code as is)."""

from __future__ import annotations

import difflib
from pathlib import Path

from lmrbench.records import Prediction, PredictionMeta
from lmrbench.tasks.schema import Implementation, Task
from lmrbench.tasks.source import SourceError, definition_in, extract


def code_prediction(impl: Implementation, model: str, snippet: str, sample: int = 0,
                    fallback: str | None = None, **meta: object) -> Prediction:
    """Form (a) from one snippet holding the target definitions (a wrong variant, a mutant, an answer).

    Targets the snippet lacks are taken from `fallback` (the golden file) when given; a snippet that defines
    none of the targets is an error.
    """
    defs = {}
    for t in impl.targets:
        try:
            defs[t] = definition_in(snippet, t)
        except SourceError:
            if fallback is None:
                raise
            defs[t] = extract(fallback, t)
    if fallback is not None and all(defs[t] == extract(fallback, t) for t in impl.targets):
        raise SourceError(f"the snippet defines none of {impl.targets} differently from the reference")
    return Prediction(instance_id=impl.instance_id, model=model, sample=sample,
                      functions={impl.goal_file: defs}, meta=PredictionMeta.model_validate(dict(meta)))


def _whole_file_diff(task: Task, impl: Implementation, golden: Path) -> str:
    old = (task.repo_dir / impl.goal_file).read_text(encoding="utf-8").splitlines(keepends=True)
    new = golden.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, f"a/{impl.goal_file}", f"b/{impl.goal_file}"))


def reference_prediction(task: Task, impl: Implementation, sample: int = 0) -> Prediction:
    """The golden implementation of every target, spliced by name; a whole-file diff when there are no targets."""
    if impl.golden_file is None:
        return Prediction(instance_id=impl.instance_id, model="reference", sample=sample,
                          error="the task has no golden file")
    golden = impl.golden_file.read_text(encoding="utf-8")
    if not impl.targets:
        return Prediction(instance_id=impl.instance_id, model="reference", sample=sample,
                          diff=_whole_file_diff(task, impl, impl.golden_file), meta=PredictionMeta(solver="reference"))
    try:
        defs = {t: extract(golden, t) for t in impl.targets}
    except SourceError as exc:  # the original's golden files do not always hold what info.json names
        return Prediction(instance_id=impl.instance_id, model="reference", sample=sample,
                          error=f"golden file {impl.golden_file.name}: {exc}")
    return Prediction(instance_id=impl.instance_id, model="reference", sample=sample,
                      functions={impl.goal_file: defs}, meta=PredictionMeta(solver="reference"))


def stub_prediction(task: Task, impl: Implementation, sample: int = 0) -> Prediction:
    """Leaves the masked repository as it is."""
    return Prediction(instance_id=impl.instance_id, model="stub", sample=sample, functions={},
                      meta=PredictionMeta(solver="stub"))
