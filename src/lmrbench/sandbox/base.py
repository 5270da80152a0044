"""The one sandbox interface. Patch application and grading are written once, above the backends."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, Field


class SandboxConfig(BaseModel):
    """Limits and isolation of the local sandbox."""

    network: Literal["off", "on"] = Field(default="off", description="'off' runs in a new network namespace.")
    filesystem: Literal["auto", "bwrap", "none"] = Field(
        default="auto",
        description="'bwrap' mounts the system read-only and hides everything but the workspace; 'auto' uses it "
        "when installed; 'none' relies on the unprivileged user only.",
    )
    sandbox_uid: int = Field(default=65534, description="User id the command sees inside bubblewrap's namespace.")
    memory_mb: int = Field(default=6144, ge=256, description="Address-space limit of the command (RLIMIT_AS).")
    max_processes: int = Field(default=256, ge=16, description="Process/thread limit (pids cgroup, else RLIMIT_NPROC).")
    max_file_mb: int = Field(default=256, ge=1, description="Largest file the command may write (RLIMIT_FSIZE).")
    hf_cache: Path | None = Field(default=None, description="A pre-downloaded Hugging Face cache (HF_HOME, or its "
                                  "hub/ folder), shown read-only inside the sandbox, with HF_HUB_OFFLINE=1.")
    gpus: bool = Field(default=False, description="Expose the NVIDIA device nodes (/dev/nvidia*) and lift the "
                       "address-space limit, which CUDA's large virtual reservations would break.")


class Isolation(BaseModel):
    """What isolation a command actually ran with; recorded with every result."""

    network: Literal["namespace", "none"]
    filesystem: Literal["bwrap", "none"]
    processes: Literal["cgroup", "rlimit", "none"]


class ExecResult(BaseModel):
    """The outcome of one command."""

    exit_code: int | None = Field(description="None when killed for the timeout; negative = killed by a signal.")
    timed_out: bool
    duration_s: float
    log_path: Path = Field(description="Combined stdout and stderr.")
    isolation: Isolation


class Sandbox(Protocol):
    """Runs a command with `workspace` as its only writable place."""

    def exec(
        self,
        cmd: list[str],
        workspace: Path,
        timeout_s: float,
        log_path: Path,
        env: dict[str, str] | None = None,
        readonly: list[Path] | None = None,
        hide: list[Path] | None = None,
    ) -> ExecResult:
        """Run `cmd` in `workspace`; `readonly` paths inside it are mounted read-only; `hide` are made empty."""
        ...

    def isolation(self) -> Isolation:
        """The isolation this backend will provide on this machine."""
        ...
