"""The built-in solvers that need no model: `reference` (the golden code) and `stub` (the masked code as is)."""

from __future__ import annotations

from pathlib import Path

from lmrbench.diffs import unified_diff
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
    return unified_diff(old, new, f"a/{impl.goal_file}", f"b/{impl.goal_file}")


def _golden_defs(impl: Implementation) -> dict[str, dict[str, str]]:
    """Every goal file's target definitions, taken from its golden version (raises SourceError, OSError)."""
    out: dict[str, dict[str, str]] = {}
    for rel, names in impl.target_map().items():
        path = impl.golden_path(rel)
        if path is None:
            raise SourceError(f"no golden version of {rel}")
        golden = path.read_text(encoding="utf-8")
        out[rel] = {t: extract(golden, t) for t in names}
    return out


def reference_prediction(task: Task, impl: Implementation, sample: int = 0) -> Prediction:
    """The golden implementation of every target, spliced by name; a whole-file diff when there are no targets."""
    if impl.golden_file is None:
        return Prediction(instance_id=impl.instance_id, model="reference", sample=sample,
                          error="the task has no golden file")
    if not impl.targets and not impl.files:
        return Prediction(instance_id=impl.instance_id, model="reference", sample=sample,
                          diff=_whole_file_diff(task, impl, impl.golden_file), meta=PredictionMeta(solver="reference"))
    try:
        functions = _golden_defs(impl)
    except (SourceError, OSError) as exc:  # the original's golden files do not always hold what info.json names
        return Prediction(instance_id=impl.instance_id, model="reference", sample=sample,
                          error=f"golden file {impl.golden_file.name}: {exc}")
    return Prediction(instance_id=impl.instance_id, model="reference", sample=sample,
                      functions=functions, meta=PredictionMeta(solver="reference"))


def edited_prediction(impl: Implementation, model: str, edited: dict[str, str], **meta: object) -> Prediction:
    """Form (a) from edited golden files (an upstream task's declared wrong variant): every target, taken from
    the edited file where there is one, else from the golden. An edit that changes no target is an error."""
    functions = _golden_defs(impl)
    changed = False
    for rel, defs in functions.items():
        if rel in edited:
            new = {t: extract(edited[rel], t) for t in defs}
            changed |= new != defs
            functions[rel] = new
    if not changed:
        raise SourceError(f"the edits change none of the targets {impl.target_map()}")
    return Prediction(instance_id=impl.instance_id, model=model, functions=functions,
                      meta=PredictionMeta.model_validate(dict(meta)))


def stub_prediction(task: Task, impl: Implementation, sample: int = 0) -> Prediction:
    """Leaves the masked repository as it is."""
    return Prediction(instance_id=impl.instance_id, model="stub", sample=sample, functions={},
                      meta=PredictionMeta(solver="stub"))
