"""The Inspect tasks: `inspect eval lmrbench/prompt` and `inspect eval lmrbench/agent`.

Options (`-T name=value`): split (main | lite | all; default main, or all when `task` is given), task (globs of
tasks or instances, comma-separated), paper (full | withheld), tasks (a task folder; default the built-in suite),
papers_dir, and the evaluation's: workers, eval_path (template | cold), isolation (best | full), timeout,
run_dir (keep evaluation logs there).
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.agent import react
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate
from inspect_ai.tool import bash
from inspect_ai.util import SandboxEnvironmentSpec

from lmrbench.integrations.inspect.dataset import Selection, SplitName, dataset, patterns
from lmrbench.integrations.inspect.sandbox import LmrbenchSandboxConfig
from lmrbench.integrations.inspect.scorer import ExecPath, lmrbench_scorer
from lmrbench.models.base import ModelSettings
from lmrbench.papers import PaperMode
from lmrbench.sandbox import IsolationLevel


def _generate_config() -> GenerateConfig:
    """lmrbench's model defaults (temperature 0, 4096 answer tokens); Inspect's own options override them."""
    ours = ModelSettings()
    return GenerateConfig(temperature=ours.temperature, max_tokens=ours.max_tokens)


def _selection(split: SplitName | None, select: str | list[str] | None, paper: PaperMode, tasks: str | None,
               papers_dir: str | None) -> Selection:
    return Selection(tasks=Path(tasks) if tasks else None, split=split, task=patterns(select), paper=paper,
                     papers_dir=Path(papers_dir) if papers_dir else None)


@task
def prompt(split: SplitName | None = None, task: str | list[str] | None = None, paper: PaperMode = "full",
           tasks: str | None = None, papers_dir: str | None = None, workers: int = 2,
           eval_path: ExecPath = "template", isolation: IsolationLevel = "best", timeout: int | None = None,
           run_dir: str | None = None) -> Task:
    """Standard prompting: the exact prompt-v1 messages, one completion, our extraction and evaluation."""
    sel = _selection(split, task, paper, tasks, papers_dir)
    return Task(dataset=dataset(sel, "prompt"), solver=generate(),
                scorer=lmrbench_scorer("prompt", tasks, workers, eval_path, isolation, timeout, run_dir),
                config=_generate_config())


@task
def agent(split: SplitName | None = None, task: str | list[str] | None = None, paper: PaperMode = "full",
          tasks: str | None = None, papers_dir: str | None = None, workers: int = 2,
          eval_path: ExecPath = "template", isolation: IsolationLevel = "best", timeout: int | None = None,
          run_dir: str | None = None, command_timeout: int = 120, max_messages: int = 80,
          time_limit: int = 1800) -> Task:
    """Inspect's ReAct agent with a bash tool in lmrbench's sandbox; the final workspace is evaluated."""
    sel = _selection(split, task, paper, tasks, papers_dir)
    box = LmrbenchSandboxConfig(tasks=sel.tasks, paper=paper, papers_dir=sel.papers_dir, isolation=isolation,
                                command_timeout_s=command_timeout)
    return Task(dataset=dataset(sel, "agent"), solver=react(tools=[bash(timeout=command_timeout)]),
                scorer=lmrbench_scorer("agent", tasks, workers, eval_path, isolation, timeout, run_dir),
                sandbox=SandboxEnvironmentSpec("lmrbench", box), message_limit=max_messages, time_limit=time_limit,
                config=_generate_config())
