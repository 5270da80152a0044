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
    """System + user message: paper text, the goal file with its masked targets, retrieval context, instruction."""
    goal = (task.repo_dir / impl.goal_file).read_text(encoding="utf-8")
    context = [
        _fence(rel, (task.repo_dir / rel).read_text(encoding="utf-8", errors="replace"))
        for rel in impl.retrieval_context if (task.repo_dir / rel).is_file()
    ]
    targets = ", ".join(f"`{t}`" for t in impl.targets) or f"the masked code in `{impl.goal_file}`"
    parts = [
        f"# Paper: {task.paper_name}\n\n{paper.text.strip()}\n",
        f"# File to complete\n\n{_fence(impl.goal_file, goal)}",
        "# Other files of the repository\n\n" + "\n".join(context) if context else "",
        f"# Instruction\n\n{impl.instruction.strip()}\n",
        f"Implement {targets} in `{impl.goal_file}`. Reply with the complete definition of each, keeping its "
        "signature, in a single ```python code block. Include any imports or helper functions your code needs.",
    ]
    return [Message(role="system", content=SYSTEM), Message(role="user", content="\n".join(p for p in parts if p))]


def prompt_prediction(task: Task, impl: Implementation, model: Model, paper: PaperText, sample: int = 0) -> Prediction:
    """Ask once, extract the targets; failures become a prediction with `error`: the provider's (model_error, outside
    the pass rate, retried on re-run) or the answer's (no usable code: scored invalid)."""
    meta: dict[str, object] = {"solver": "prompt", "prompt_version": PROMPT_VERSION, "paper_source": paper.source,
            "settings": model.settings.model_dump()}
    try:
        resp = model.query(build_prompt(task, impl, paper))
    except ModelError as exc:
        return Prediction(instance_id=impl.instance_id, model=model.name, sample=sample,
                          error=f"model error: {exc}",
                          meta=PredictionMeta.model_validate(meta | {"outcome": Outcome.MODEL_ERROR}))
    meta |= {"usage": resp.usage.model_dump(), "finish_reason": resp.finish_reason, "answer": resp.content}
    goal = (task.repo_dir / impl.goal_file).read_text(encoding="utf-8")
    try:
        found = extract_targets(resp.content, impl.targets, goal)
    except ExtractionError as exc:
        why = f"{exc}" + (" (answer truncated)" if resp.finish_reason == "length" else "")
        return Prediction(instance_id=impl.instance_id, model=model.name, sample=sample,
                          error=f"no usable code: {why}",
                          meta=PredictionMeta.model_validate(meta | {"outcome": Outcome.NO_CODE}))
    return Prediction(instance_id=impl.instance_id, model=model.name, sample=sample,
                      functions={impl.goal_file: found.entry()}, meta=PredictionMeta.model_validate(meta))
