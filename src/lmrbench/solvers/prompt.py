"""Standard prompting: one request per implementation, as in the paper's no-agent setting."""

from __future__ import annotations

from lmrbench.models.base import Message, Model, ModelError
from lmrbench.papers import PaperText
from lmrbench.records import Outcome, Prediction, PredictionMeta
from lmrbench.solvers.extract import ExtractionError, extract_targets
from lmrbench.tasks.schema import Implementation, Task

PROMPT_VERSION = "prompt-v1"

SYSTEM = (
    "You are an expert machine-learning researcher and software engineer. You implement methods from research "
    "papers exactly as the paper defines them, inside an existing code base."
)


def _fence(path: str, text: str) -> str:
    return f"### `{path}`\n```python\n{text.rstrip()}\n```\n"


def build_prompt(task: Task, impl: Implementation, paper: PaperText) -> list[Message]:
    """System + user message: paper text, the goal file with its masked targets, retrieval context, instruction.
    An implementation with targets in several files (the upstream split) shows each goal file."""
    files = impl.target_map()
    goals = {rel: (task.repo_dir / rel).read_text(encoding="utf-8") for rel in files}
    context = [
        _fence(rel, (task.repo_dir / rel).read_text(encoding="utf-8", errors="replace"))
        for rel in impl.retrieval_context if (task.repo_dir / rel).is_file() and (len(files) == 1 or rel not in goals)
    ]
    if len(files) > 1:
        head = "# Files to complete\n\n" + "\n".join(_fence(rel, text) for rel, text in goals.items())
        ask = _several_files_ask(files)
    else:
        head = f"# File to complete\n\n{_fence(impl.goal_file, goals[impl.goal_file])}"
        targets = ", ".join(f"`{t}`" for t in impl.targets) or f"the masked code in `{impl.goal_file}`"
        ask = (f"Implement {targets} in `{impl.goal_file}`. Reply with the complete definition of each, keeping its "
               "signature, in a single ```python code block. Include any imports or helper functions your code "
               "needs.")
    parts = [
        f"# Paper: {task.paper_name}\n\n{paper.text.strip()}\n",
        head,
        "# Other files of the repository\n\n" + "\n".join(context) if context else "",
        f"# Instruction\n\n{impl.instruction.strip()}\n",
        ask,
    ]
    return [Message(role="system", content=SYSTEM), Message(role="user", content="\n".join(p for p in parts if p))]


def _several_files_ask(files: dict[str, list[str]]) -> str:
    listing = "\n".join(f"- `{rel}`: " + ", ".join(f"`{t}`" for t in names) for rel, names in files.items())
    return (f"Implement these targets:\n{listing}\n\nReply with one ```python code block per file, each right "
            "after a heading that names the file (### `path/to/file.py`), holding the complete definition of each "
            "of that file's targets, keeping its signature. Include any imports or helper functions your code needs "
            "in the block of the file that uses them.")


def file_sections(answer: str, files: list[str]) -> dict[str, str]:
    """The part of an answer about each file: from a mention of its path to the next mention of another path;
    a file never mentioned gets the whole answer."""
    marks = sorted((answer.rfind(f"`{rel}`") if f"`{rel}`" in answer else answer.find(rel), rel) for rel in files)
    marks = [(at, rel) for at, rel in marks if at >= 0]
    out = {rel: answer for rel in files}
    for n, (at, rel) in enumerate(marks):
        out[rel] = answer[at: marks[n + 1][0] if n + 1 < len(marks) else len(answer)]
    return out


def extract_files(answer: str, task: Task, impl: Implementation) -> dict[str, dict[str, str]]:
    """Every goal file's `functions` entry from one answer; raises ExtractionError naming the file."""
    files = impl.target_map()
    sections = file_sections(answer, list(files))
    out = {}
    for rel, names in files.items():
        goal = (task.repo_dir / rel).read_text(encoding="utf-8")
        try:
            found = extract_targets(sections[rel], names, goal)
        except ExtractionError:
            try:
                found = extract_targets(answer, names, goal)
            except ExtractionError as exc:
                raise ExtractionError(f"{rel}: {exc}") from exc
        out[rel] = found.entry()
    return out


def prompt_prediction(task: Task, impl: Implementation, model: Model, paper: PaperText, sample: int = 0) -> Prediction:
    """Ask once, extract the targets; failures become a prediction with `error`: the provider's (model_error, outside
    the pass rate, retried on re-run) or the answer's (no usable code: scored invalid)."""
    meta = PredictionMeta(solver="prompt", prompt_version=PROMPT_VERSION, paper_source=paper.source,
                          settings=model.settings.model_dump())
    try:
        resp = model.query(build_prompt(task, impl, paper))
    except ModelError as exc:
        return Prediction(instance_id=impl.instance_id, model=model.name, sample=sample,
                          error=f"model error: {exc}", meta=meta.model_copy(update={"outcome": Outcome.MODEL_ERROR}))
    meta = meta.model_copy(update={"usage": resp.usage, "finish_reason": resp.finish_reason})
    return answer_prediction(task, impl, resp.content, model.name, sample, meta)


def answer_prediction(task: Task, impl: Implementation, answer: str, model: str, sample: int,
                      meta: PredictionMeta) -> Prediction:
    """The targets extracted from a model's answer to the prompt; no usable code is an error prediction."""
    meta = meta.model_copy(update={"answer": answer})
    try:
        if len(impl.target_map()) > 1:
            functions = extract_files(answer, task, impl)
        else:
            goal = (task.repo_dir / impl.goal_file).read_text(encoding="utf-8")
            functions = {impl.goal_file: extract_targets(answer, impl.targets, goal).entry()}
    except ExtractionError as exc:
        why = f"{exc}" + (" (answer truncated)" if meta.finish_reason == "length" else "")
        return Prediction(instance_id=impl.instance_id, model=model, sample=sample,
                          error=f"no usable code: {why}", meta=meta.model_copy(update={"outcome": Outcome.NO_CODE}))
    return Prediction(instance_id=impl.instance_id, model=model, sample=sample, functions=functions, meta=meta)
