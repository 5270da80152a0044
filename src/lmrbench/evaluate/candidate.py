"""The candidate's code as the judge and the report see it: its target definitions (and what it added), taken
once, when the prediction is evaluated, and kept beside the log (`<log>.candidate.py`)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from lmrbench.evaluate.apply import InvalidPrediction, apply_prediction, make_workspace
from lmrbench.records import Evaluation, Prediction
from lmrbench.rundir import RunDir, latest_records
from lmrbench.safefs import read_file
from lmrbench.tasks.schema import Implementation, Task
from lmrbench.tasks.source import SourceError, extract

MAX_CANDIDATE_BYTES = 1024 * 1024
PARSE_ERRORS = (SourceError, SyntaxError, ValueError, RecursionError, MemoryError)


def from_applied(impl: Implementation, pred: Prediction, goal_text: str,
                 texts: dict[str, str] | None = None) -> str | None:
    """The candidate's code given the goal file as applied: the answer's own entries in the functions form (the
    targets, then what it added), else the target definitions found in the file. With targets in several files
    (the upstream split), `texts` holds each goal file as applied, and every file's part is headed by its path."""
    files = impl.target_map()
    if len(files) > 1:
        return _from_files(impl, pred, files, texts or {impl.goal_file: goal_text})
    if pred.functions is not None and impl.targets:
        defs = pred.functions.get(impl.goal_file, {})
        if all(t in defs for t in impl.targets):
            names = impl.targets + [k for k in defs if k not in impl.targets]
            return "\n\n".join(defs[k].strip() + "\n" for k in names)
    try:
        return "\n\n".join(extract(goal_text, t) for t in impl.targets) if impl.targets else goal_text
    except PARSE_ERRORS:
        return None


def _from_files(impl: Implementation, pred: Prediction, files: dict[str, list[str]],
                texts: dict[str, str]) -> str | None:
    parts = []
    for rel, names in files.items():
        one = impl.model_copy(update={"goal_file": rel, "targets": names, "files": {}})
        code = from_applied(one, pred, texts[rel]) if rel in texts else None
        if code is None:
            return None
        parts.append(f"# --- {rel} ---\n{code}")
    return "\n\n".join(parts)


def candidate_code(task: Task, impl: Implementation, pred: Prediction, repo_root: Path | None = None) -> str | None:
    """The candidate's definitions of the targets, or None when there is nothing to judge. A repo_dir
    prediction is read only under `repo_root` (a run's own `workspaces/`, where the agent solver leaves them)."""
    if pred.error is not None:
        return None
    with tempfile.TemporaryDirectory(prefix="lmrbench-candidate-") as tmp:
        ws = make_workspace(task, Path(tmp) / "repo")
        try:
            apply_prediction(pred, ws, repo_root)
            texts = {rel: (ws / rel).read_text(encoding="utf-8") for rel in impl.target_map()}
            return from_applied(impl, pred, texts[impl.goal_file], texts)
        except (InvalidPrediction, OSError, *PARSE_ERRORS):
            return None




def kept_candidates(run: RunDir) -> dict[tuple[str, str, int], str]:
    """(instance, model, sample) -> the candidate code the evaluation stage kept, for every evaluated item."""
    out = {}
    for ev in latest_records(run.evaluations, Evaluation, lambda e: e.item_key):
        if ev.candidate_path:
            try:
                out[ev.item_key] = read_file(run.resolve(ev.candidate_path),
                                                                       MAX_CANDIDATE_BYTES).decode("utf-8", "replace")
            except (OSError, ValueError):
                continue
    return out
