"""A small tool-using agent, in the spirit of mini-swe-agent: it runs shell commands in the task's sandboxed
workspace (network off, no secrets, no reference files) until it submits or hits a limit. The trajectory is saved
after every step; the prediction is the final workspace."""

from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path

from pydantic import BaseModel, Field

from lmrbench.budget import Budget, BudgetOverride, BudgetUse, resolve_budget
from lmrbench.evaluate.apply import make_workspace
from lmrbench.models.base import Message, Model, ModelError, ModelResponse, ToolCall, ToolSpec, Usage
from lmrbench.papers import PaperText
from lmrbench.records import Outcome, Prediction, PredictionMeta
from lmrbench.rundir import RunDir, agent_item_name
from lmrbench.sandbox import LocalSandbox, Sandbox
from lmrbench.sandbox.base import Isolation
from lmrbench.tasks.schema import Implementation, Task, TaskEnv

AGENT_VERSION = "agent-v1"
TASK_DIR = ".task"  # paper text and instructions inside the workspace; never part of the prediction
BASH = ToolSpec(
    name="bash",
    description="Run one bash command in the repository (your working directory). Returns exit code and output.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)
SUBMIT = ToolSpec(name="submit", description="Submit: your edits in the repository are the final answer.",
                  parameters={"type": "object", "properties": {}})
TEXT_ACTION = re.compile(r"```(?:bash|sh|shell)\s*\n(.*?)```", re.DOTALL)

SYSTEM = f"""You are an expert ML engineer working in a code repository, in a sandbox.
You have one tool, `bash`, that runs a command in the repository, and `submit`, to finish.
The method description is in {TASK_DIR}/paper.md and the task in {TASK_DIR}/INSTRUCTIONS.md. Read them first.
Rules: implement the masked function(s) (they raise NotImplementedError) so that they follow the paper exactly;
keep their signatures; do not edit or create tests, do not change other behaviour of the repository; there is
no network and no package installation. You may write and run scratch scripts to check your code.
When you are done, call `submit`.
If you cannot call tools, put exactly one command in a ```bash block per reply, and write SUBMIT alone on a
line to finish."""


class AgentLimits(BaseModel):
    """When the agent must stop. Steps, tokens and wall time are the benchmark's budget: None keeps the task's
    (its info.json's, else its split's default; lmrbench.budget); a value overrides it for the whole run."""

    max_steps: int | None = Field(default=None, ge=1, description="Model calls; None: the task's budget.")
    max_tokens: int | None = Field(default=None, ge=1, description="Input + output tokens over the whole "
                                   "episode; None: the task's budget.")
    max_cost_usd: float = Field(default=2.0, ge=0, description="Cost over the whole episode (a spending guard, "
                                "not part of the budget).")
    max_wall_s: float | None = Field(default=None, gt=0, description="Wall time of the whole episode; None: the "
                                     "task's budget.")
    command_timeout_s: float = Field(default=120.0, gt=0, description="Wall time of one command.")
    output_chars: int = Field(default=8000, ge=200, description="Command output kept for the model.")
    native_tools: bool = Field(default=True, description="Use the provider's tool calling; else the text format.")

    def override(self) -> BudgetOverride:
        """The budget fields this run sets."""
        return BudgetOverride(max_steps=self.max_steps, max_tokens=self.max_tokens, max_wall_s=self.max_wall_s)


def task_budget(task: Task, limits: AgentLimits | None = None) -> BudgetUse:
    """The budget in force for a task: its split's default, its info.json's fields, then the run's limits."""
    return resolve_budget(task.split, task.budget, limits.override() if limits else None)


class Submitted(Exception):
    """The agent submitted."""


class LimitReached(Exception):
    """A limit stopped the agent; the message names it."""


class Step(BaseModel):
    response: ModelResponse
    observations: list[str]


class Trajectory(BaseModel):
    instance_id: str
    model: str
    sample: int
    agent_version: str = AGENT_VERSION
    messages: list[Message] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    exit: str = ""
    outcome: Outcome = Outcome.DONE
    isolation: Isolation | None = Field(default=None, description="What isolation the agent's commands ran with "
                                        "(the sandbox built from the run's --isolation, --hf-cache and --gpus).")
    budget: BudgetUse | None = None


def instructions_text(task: Task, impl: Implementation, budget: Budget | None = None) -> str:
    """INSTRUCTIONS.md (and the agent's first message); it states the budget (by default the task's own)."""
    files = impl.target_map()
    if len(files) > 1:  # the upstream split: targets in several files
        where = "; ".join(", ".join(f"`{t}`" for t in names) + f" in `{rel}`" for rel, names in files.items())
    else:
        where = (", ".join(f"`{t}`" for t in impl.targets) or "the masked code") + f" in `{impl.goal_file}`"
    return (f"# Task {impl.instance_id}: {task.paper_name}\n\nPaper: {task.paper_url}\n\n{impl.instruction}\n\n"
            f"Implement {where}. The method description is in `paper.md` beside this file.\n"
            f"Useful files: {', '.join(impl.retrieval_context) or '(none listed)'}.\n\n"
            f"Budget: {(budget or task_budget(task).budget).statement()}. When any of them runs out you are "
            "stopped, and the repository as it stands then is graded.\n")


class Agent:
    """One episode on one implementation."""

    def __init__(self, model: Model, limits: AgentLimits, sandbox: Sandbox | None = None) -> None:
        self.model, self.limits = model, limits
        self.sandbox = sandbox or LocalSandbox()  # sees only the workspace: no tasks, run directory or project
        self.task_env: TaskEnv | None = None  # the task's own environment (upstream split), set by `run`
        self.isolation: Isolation | None = None  # as the last command ran

    def _env_view(self) -> tuple[dict[str, str] | None, list[Path] | None]:
        """The task environment's interpreter first on PATH, its folder visible (read-only); else the defaults."""
        if self.task_env is None:
            return None, None
        path = f"{self.task_env.python.parent}:{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"
        return {"PATH": path, "VIRTUAL_ENV": str(self.task_env.root)}, [self.task_env.root]

    def _execute(self, command: str, ws: Path, log_dir: Path, n: int) -> str:
        log = log_dir / f"cmd{n:03d}.log"
        env, readonly = self._env_view()
        res = self.sandbox.exec(["bash", "-lc", command], ws, self.limits.command_timeout_s, log, env=env,
                                readonly=readonly)
        self.isolation = res.isolation
        text = log.read_text(encoding="utf-8", errors="replace")
        if len(text) > self.limits.output_chars:
            half = self.limits.output_chars // 2
            text = text[:half] + f"\n... [{len(text) - 2 * half} characters cut] ...\n" + text[-half:]
        status = "timed out" if res.timed_out else f"exit code {res.exit_code}"
        return f"[{status}]\n{text}"

    def _check_limits(self, traj: Trajectory, start: float) -> None:
        lim, u = self.limits, traj.usage
        assert traj.budget is not None
        b = traj.budget.budget
        if len(traj.steps) >= b.max_steps:
            raise LimitReached(f"step limit ({b.max_steps})")
        if u.input_tokens + u.output_tokens >= b.max_tokens:
            raise LimitReached(f"token limit ({b.max_tokens})")
        if u.cost_usd >= lim.max_cost_usd:
            raise LimitReached(f"cost limit (${lim.max_cost_usd})")
        if time.monotonic() - start >= b.max_wall_s:
            raise LimitReached(f"wall-time limit ({b.max_wall_s} s)")

    def _act(self, resp: ModelResponse, ws: Path, log_dir: Path, traj: Trajectory) -> list[str]:
        """Run the actions of one reply; append the observations as messages. Raises Submitted."""
        observations: list[str] = []
        calls: list[ToolCall] = resp.tool_calls
        if calls:
            traj.messages.append(Message(role="assistant", content=resp.content, tool_calls=calls))
            for call in calls:
                if call.name == "submit":
                    raise Submitted
                if call.name != "bash" or call.parse_error or "command" not in call.arguments:
                    obs = f"error: bad tool call {call.name!r}: {call.parse_error or 'expected {command: str}'}"
                else:
                    obs = self._execute(str(call.arguments["command"]), ws, log_dir, len(traj.steps))
                observations.append(obs)
                traj.messages.append(Message(role="tool", content=obs, tool_call_id=call.id))
            return observations
        traj.messages.append(Message(role="assistant", content=resp.content))
        actions = TEXT_ACTION.findall(resp.content)
        if re.search(r"^\s*SUBMIT\s*$", resp.content, re.MULTILINE) and not actions:
            raise Submitted
        if len(actions) != 1:
            obs = "error: call a tool, or put exactly one command in a ```bash block (or SUBMIT to finish)."
        else:
            obs = self._execute(actions[0], ws, log_dir, len(traj.steps))
        observations.append(obs)
        traj.messages.append(Message(role="user", content=obs))
        return observations

    def run(self, task: Task, impl: Implementation, paper: PaperText, ws: Path, traj_path: Path,
            sample: int = 0) -> Trajectory:
        """Run one episode in `ws` (prepared by `prepare_workspace`); the trajectory is saved after every step."""
        traj = Trajectory(instance_id=impl.instance_id, model=self.model.name, sample=sample,
                          budget=task_budget(task, self.limits))
        self.task_env = task.env if task.upstream is not None else None  # (the original layout: unchanged)
        assert traj.budget is not None
        traj.messages = [Message(role="system", content=SYSTEM),
                         Message(role="user", content=instructions_text(task, impl, traj.budget.budget))]
        tools = [BASH, SUBMIT] if self.limits.native_tools else None
        log_dir = traj_path.with_suffix("")
        log_dir.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        try:
            while True:
                self._check_limits(traj, start)
                resp = self.model.query(traj.messages, tools)
                traj.usage = traj.usage + resp.usage
                step = Step(response=resp, observations=[])
                traj.steps.append(step)
                try:
                    step.observations = self._act(resp, ws, log_dir, traj)
                finally:
                    traj.isolation = self.isolation
                    _save(traj, traj_path)
        except Submitted:
            traj.exit = "submitted"
        except LimitReached as exc:
            traj.exit, traj.outcome = f"limit: {exc}", Outcome.LIMIT
        except ModelError as exc:
            traj.exit, traj.outcome = f"model error: {exc}", Outcome.MODEL_ERROR
        finally:
            _spent(traj, start)
            _save(traj, traj_path)
        return traj


def _spent(traj: Trajectory, start: float) -> None:
    """Record what the episode used of its budget: steps, tokens, and wall seconds until it submitted or stopped."""
    if traj.budget is not None:
        traj.budget = traj.budget.model_copy(update={
            "steps": len(traj.steps), "tokens": traj.usage.input_tokens + traj.usage.output_tokens,
            "wall_s": round(time.monotonic() - start, 3)})


def _save(traj: Trajectory, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(traj.model_dump_json(indent=1), encoding="utf-8")
    tmp.replace(path)


def prepare_workspace(task: Task, impl: Implementation, paper: PaperText, ws: Path,
                      budget: Budget | None = None) -> Path:
    """The masked repository plus the paper text and instructions (stating `budget`) under .task/."""
    make_workspace(task, ws)
    (ws / TASK_DIR).mkdir()
    (ws / TASK_DIR / "paper.md").write_text(paper.text, encoding="utf-8")
    (ws / TASK_DIR / "INSTRUCTIONS.md").write_text(instructions_text(task, impl, budget), encoding="utf-8")
    return ws


def agent_prediction(task: Task, impl: Implementation, model: Model, paper: PaperText, run_dir: RunDir | Path,
                     limits: AgentLimits | None = None, sample: int = 0, sandbox: Sandbox | None = None
                     ) -> Prediction:
    """Run the agent; the prediction is form (c), the final workspace (kept under run_dir/workspaces). `sandbox`
    runs its commands (default: a LocalSandbox with the default SandboxConfig)."""
    limits = limits or AgentLimits()
    run = RunDir.of(run_dir)
    name = agent_item_name(impl.instance_id, model.name, sample)
    ws = prepare_workspace(task, impl, paper, run.agent_work / name, task_budget(task, limits).budget)
    traj_path = run.trajectory(name)
    traj_path.parent.mkdir(parents=True, exist_ok=True)
    traj = Agent(model, limits, sandbox).run(task, impl, paper, ws, traj_path, sample)
    final = run.workspaces / name
    if final.exists():
        shutil.rmtree(final)
    kept = ""
    try:  # links are copied as links (evaluation refuses them); a FIFO or device cannot be copied at all
        shutil.copytree(ws, final, symlinks=True,
                        ignore=shutil.ignore_patterns(TASK_DIR, ".home", ".tmp", "__pycache__"))
    except (shutil.Error, OSError) as exc:
        kept = f"the final workspace could not be kept: {str(exc)[:300]}"
    shutil.rmtree(ws, ignore_errors=True)
    meta = PredictionMeta(solver="agent", agent_version=AGENT_VERSION, paper_source=paper.source, exit=traj.exit,
                          outcome=traj.outcome, steps=len(traj.steps), usage=traj.usage, trajectory=str(traj_path),
                          settings=model.settings.model_dump(), limits=limits.model_dump(), budget=traj.budget)
    # a provider that failed mid-episode cut the agent short: no answer to score (model_error, retried on re-run)
    if traj.outcome is Outcome.MODEL_ERROR or kept:
        return Prediction(instance_id=impl.instance_id, model=model.name, sample=sample, error=kept or traj.exit,
                          meta=meta)
    return Prediction(instance_id=impl.instance_id, model=model.name, sample=sample, repo_dir=str(final), meta=meta)


