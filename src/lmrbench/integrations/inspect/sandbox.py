"""Our sandbox as an Inspect sandbox environment, so that Inspect's agents work with lmrbench's isolation.

Each sample gets the workspace `lmrbench workspace export` makes (the masked repository, paper.md,
INSTRUCTIONS.md, .lmrbench.json) in a private folder. Every command, file read and file write runs *inside* our
local sandbox (network off, a scrubbed environment, only the workspace writable, nothing else of the host
visible: no references, no hidden tests, no secrets), so a link the agent planted never sends a host-side read or
write elsewhere. The scorer reads the final workspace from `LmrbenchSandbox.workspace`.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path
from typing import Literal, Union, overload

import anyio
from inspect_ai.util import (
    ExecResult,
    OutputLimitExceededError,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    sandboxenv,
)
from pydantic import BaseModel, ConfigDict, Field

from lmrbench.external import export_workspaces
from lmrbench.integrations.inspect.dataset import full_taskset
from lmrbench.papers import PaperMode
from lmrbench.safefs import UnsafePath, read_file, read_tail
from lmrbench.sandbox import IsolationLevel, LocalSandbox, SandboxConfig

BASH = "/bin/bash"
# cd to the requested folder, feed the input file (if any) to the command: both given as arguments, never parsed
WRAPPER = 'cd -- "$1" || exit 126; f="$2"; shift 2; if [ -n "$f" ]; then exec "$@" < "$f"; else exec "$@"; fi'
WRITE = 'mkdir -p -- "$(dirname -- "$1")" && { [ ! -d "$1" ] || exit 21; } && cat > "$1"'
READ = '[ -e "$1" ] || exit 20; [ ! -d "$1" ] || exit 21; cat -- "$1" > "$2"'


class LmrbenchSandboxConfig(BaseModel):
    """How the `lmrbench` sandbox environment makes and runs each sample's workspace (frozen: Inspect hashes it)."""

    model_config = ConfigDict(frozen=True)

    tasks: Path | None = Field(default=None, description="Task folder; None: the built-in suite.")
    paper: PaperMode = Field(default="full", description="full: paper.md holds the paper text; withheld: a note.")
    papers_dir: Path | None = Field(default=None, description="Cached paper texts.")
    isolation: IsolationLevel = Field(default="best", description="best: what this machine allows (recorded); "
                                      "full: refuse to run unless fully isolated.")
    command_timeout_s: int = Field(default=120, ge=1, description="Limit of a command given no timeout.")
    output_bytes: int = Field(default=10 * 1024 * 1024, ge=1024, description="Output of a command kept (its tail).")
    max_file_bytes: int = Field(default=100 * 1024 * 1024, ge=1024, description="Largest file read_file returns.")


@sandboxenv(name="lmrbench")
class LmrbenchSandbox(SandboxEnvironment):
    """One sample's workspace, every command in our sandbox."""

    def __init__(self, workspace: Path, scratch: Path, config: LmrbenchSandboxConfig) -> None:
        super().__init__()
        self.workspace, self.scratch, self.config = workspace, scratch, config
        self.backend = LocalSandbox(SandboxConfig(isolation=config.isolation))
        self._calls = itertools.count(1)  # next() is atomic: parallel tool calls get distinct folders

    @classmethod
    def config_deserialize(cls, config: dict[str, object]) -> BaseModel:
        return LmrbenchSandboxConfig.model_validate(config)

    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        """Refuse before any sample when isolation='full' cannot be had here (IsolationError names what lacks)."""
        LocalSandbox(SandboxConfig(isolation=_config(config).isolation)).isolation()

    @classmethod
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        cfg = _config(config)
        instance = str(metadata["instance_id"])
        scratch = Path(tempfile.mkdtemp(prefix="lmrbench-inspect-"))
        scratch.chmod(0o711)  # the sandbox uid reaches its workspace and inputs through it, nothing more
        ts = full_taskset(cfg.tasks)
        ts.resolve(instance)  # a KeyError names an unknown instance
        made = export_workspaces(ts, scratch / "ws", [instance], cfg.papers_dir, cfg.paper)
        (ws,) = [w for w in made if w.name == instance.replace("/", "__")]
        return {"default": cls(ws, scratch, cfg)}

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                             environments: dict[str, SandboxEnvironment], interrupted: bool) -> None:
        for env in environments.values():
            if isinstance(env, LmrbenchSandbox):
                shutil.rmtree(env.scratch, ignore_errors=True)

    def _call_dir(self) -> Path:
        path = self.scratch / "calls" / f"{next(self._calls):05d}"
        path.mkdir(parents=True)
        path.parent.chmod(0o711)
        path.chmod(0o755)
        return path

    def _run(self, cmd: list[str], input: str | bytes | None, cwd: str | None, env: dict[str, str] | None,
             timeout: int | None, writable: list[Path]) -> tuple[int | None, bool, str]:
        """Run in the sandbox (blocking): exit code, timed out, the output's tail (stdout and stderr together)."""
        call = self._call_dir()
        stdin = ""
        if input is not None:
            (call / "stdin").write_bytes(input.encode("utf-8") if isinstance(input, str) else input)
            (call / "stdin").chmod(0o644)
            stdin = str(call / "stdin")
        folder = str(self.workspace if cwd is None else self.workspace / cwd)
        argv = [BASH, "-c", WRAPPER, "lmrbench", folder, stdin, *cmd]
        log = self.scratch / "logs" / f"{call.name}.log"
        res = self.backend.exec(argv, self.workspace, timeout or self.config.command_timeout_s, log, env=env,
                                readonly=[call], writable=writable)
        return res.exit_code, res.timed_out, read_tail(log, self.config.output_bytes)

    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        if user is not None:
            raise PermissionError(f"the lmrbench sandbox runs every command as its own unprivileged user, not {user!r}")
        code, timed_out, output = await anyio.to_thread.run_sync(self._run, cmd, input, cwd, env, timeout, [])
        if timed_out:
            raise TimeoutError(f"command timed out after {timeout or self.config.command_timeout_s} s")
        return ExecResult(success=code == 0, returncode=code if code is not None else -9, stdout=output, stderr="")

    async def write_file(self, file: str, contents: str | bytes) -> None:
        code, timed_out, output = await anyio.to_thread.run_sync(
            self._run, [BASH, "-c", WRITE, "write", file], contents, None, None, None, [])
        _raise_for(code, timed_out, file, output)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> Union[str | bytes]:  # noqa: UP007 (as Inspect's)
        out = self._call_dir()
        target = out / "content"
        code, timed_out, output = await anyio.to_thread.run_sync(
            self._run, [BASH, "-c", READ, "read", file, str(target)], None, None, None, None, [out])
        _raise_for(code, timed_out, file, output)
        data = self._read_out(target)
        return data.decode("utf-8") if text else data

    def _read_out(self, target: Path) -> bytes:
        """The copy the sandbox made: never through a link, never past the cap."""
        cap = self.config.max_file_bytes
        if not target.is_symlink() and target.is_file() and target.stat().st_size > cap:
            raise OutputLimitExceededError(limit_str=f"{cap:,} bytes", truncated_output=None)
        try:
            return read_file(target, cap)
        except UnsafePath as exc:
            raise PermissionError(str(exc)) from exc


def _config(config: SandboxEnvironmentConfigType | None) -> LmrbenchSandboxConfig:
    if isinstance(config, LmrbenchSandboxConfig):
        return config
    if config is None:
        return LmrbenchSandboxConfig()
    raise ValueError(f"the lmrbench sandbox takes an LmrbenchSandboxConfig, not {config!r}")


def _raise_for(code: int | None, timed_out: bool, file: str, output: str) -> None:
    if timed_out:
        raise TimeoutError(f"{file}: timed out")
    if code == 20:
        raise FileNotFoundError(f"{file}: no such file")
    if code == 21:
        raise IsADirectoryError(f"{file}: is a folder")
    if code != 0:
        raise PermissionError(f"{file}: {output.strip()[-500:] or f'exit code {code}'}")
