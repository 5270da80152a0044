"""The one sandbox interface. Patch application and grading are written once, above the backends."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, Field

# Host paths the sandbox sees read-only besides the Python installation in use and its own workspace. Everything
# else (/home, /root, /run, /var, /tmp, /srv, /mnt, other checkouts, the tasks) is not there at all.
SYSTEM_PATHS = (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime",
    "/etc/timezone", "/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf", "/etc/mime.types", "/etc/fonts",
    "/etc/ssl/certs", "/etc/ca-certificates", "/etc/os-release", "/etc/debian_version",
)

LimitHit = Literal["memory", "workspace", "inodes", "processes"]
IsolationLevel = Literal["best", "full"]


Kernels = Literal["pinned", "host", "other-blas", "mkl-avx2", "mkl-avx512", "mkl-sse4_2"]


class SandboxConfig(BaseModel):
    """Limits and isolation of the local sandbox."""

    network: Literal["off", "on"] = Field(default="off", description="'off' runs in a new network namespace.")
    filesystem: Literal["auto", "bwrap", "none"] = Field(
        default="auto",
        description="'bwrap': an allow-list view (system paths, the Python in use, the workspace, nothing else); "
        "'auto' uses it when bubblewrap works here; 'none' relies on the unprivileged user only.",
    )
    isolation: IsolationLevel = Field(
        default="best",
        description="'best' runs with whatever this machine allows and records it; 'full' refuses to run (raises "
        "IsolationError) unless every property below is at its strongest.",
    )
    sandbox_uid: int = Field(default=65534, description="User id the command sees when the harness is not root.")
    uid_base: int = Field(
        default=200000, ge=1000,
        description="When the harness runs as root, each concurrent sandbox runs as its own unprivileged host uid "
        "from [uid_base, uid_base + uid_slots), so per-user limits (RLIMIT_NPROC) are per sandbox.",
    )
    uid_slots: int = Field(default=64, ge=1, description="How many sandbox uids (concurrent sandboxes as root).")
    uid_lock_dir: Path = Field(
        default=Path("/run/lmrbench/uids"),
        description="Root-only folder of lock files that hand out sandbox uids across harness processes.",
    )
    memory_mb: int = Field(
        default=6144, ge=64,
        description="Memory of the whole sandbox, tmpfs included (memory cgroup; else a watchdog on the processes' "
        "memory); also each process's address-space limit (RLIMIT_AS).",
    )
    max_processes: int = Field(
        default=256, ge=8, description="Processes and threads of the sandbox (pids cgroup and RLIMIT_NPROC)."
    )
    max_file_mb: int = Field(default=256, ge=1, description="Largest file the command may write (RLIMIT_FSIZE).")
    workspace_mb: int = Field(
        default=2048, ge=1,
        description="Most the workspace and the writable paths may hold together, files unlinked but still open "
        "included: the size of the tmpfs they run on (as root; else polled by the watchdog).",
    )
    workspace_inodes: int = Field(
        default=100_000, ge=64,
        description="Most files, folders and links the workspace and the writable paths may hold together (the "
        "tmpfs's nr_inodes as root; else counted by the watchdog's walk).",
    )
    tmp_mb: int = Field(default=512, ge=1, description="Size of each private tmpfs (/tmp, /dev/shm).")
    cgroups: Literal["auto", "off"] = Field(
        default="auto", description="'off' never uses cgroups (the watchdog and per-uid rlimits then stand alone)."
    )
    system_paths: tuple[str, ...] = Field(
        default=SYSTEM_PATHS, description="Host paths mounted read-only when they exist (the allow-list)."
    )
    hf_cache: Path | None = Field(default=None, description="A pre-downloaded Hugging Face cache (HF_HOME, or its "
                                  "hub/ folder), shown read-only inside the sandbox, with HF_HUB_OFFLINE=1.")
    gpus: bool = Field(default=False, description="Expose the NVIDIA device nodes (/dev/nvidia*) and lift the "
                       "address-space limit, which CUDA's large virtual reservations would break.")
    kernels: Kernels = Field(
        default="pinned",
        description="CPU kernels of torch, numpy and OpenBLAS inside the sandbox. 'pinned': the AVX2 set on every "
        "x86-64 host that has it, so AVX2 and AVX-512 hosts compute the same bits (sandbox/numerics.py); 'host': "
        "whatever the libraries pick here; 'other-blas': pinned, but MKL's compatibility branch and OpenBLAS's "
        "oldest kernels sum matrix products in another order, as another host's BLAS may (proves tolerances "
        "cover it); 'mkl-avx2', 'mkl-avx512', 'mkl-sse4_2': pinned, with MKL forced onto that code branch (the "
        "branches MKL picks among by CPU model and vendor; docs/host-independence.md).",
    )


class Isolation(BaseModel):
    """What isolation a command actually ran with; recorded with every result. None: not recorded (older)."""

    network: Literal["namespace", "none"]
    filesystem: Literal["bwrap", "template", "none"] = Field(
        description="'bwrap': the allow-list view made by bubblewrap; 'template': the same view made by a pre-warmed "
        "template's child in its own namespaces."
    )
    processes: Literal["cgroup", "uid-rlimit", "rlimit", "none"] = Field(
        description="'cgroup': pids cgroup; 'uid-rlimit': RLIMIT_NPROC on a uid of its own; 'rlimit': RLIMIT_NPROC "
        "on a uid shared with other processes."
    )
    memory: Literal["cgroup", "watchdog", "rlimit"] | None = Field(
        default=None, description="Whole-sandbox memory: cgroup (tmpfs charged) or watchdog; 'rlimit': per process."
    )
    uid: int | None = Field(default=None, description="Host uid the command ran as.")
    capabilities: Literal["dropped", "kept"] | None = None
    user_namespaces: Literal["blocked", "allowed"] | None = Field(
        default=None, description="Whether the command could create nested user namespaces."
    )
    workspace_mb: int | None = Field(default=None, description="Workspace cap (bytes of the writable places).")
    workspace_inodes: int | None = Field(default=None, description="Workspace cap on files, folders and links.")
    disk: Literal["tmpfs", "watchdog"] | None = Field(
        default=None, description="How the workspace caps held: 'tmpfs': the writable places ran on a size- and "
        "inode-capped tmpfs (the kernel refuses past either, unlinked open files included); 'watchdog': polled (a "
        "walk of the folders plus the files held open after unlinking), overshot by what is written between looks.")
    tmp_mb: int | None = Field(default=None, description="Size of the private tmpfs mounts.")


class IsolationError(RuntimeError):
    """isolation='full' was asked for and this machine cannot give it; the message says what is missing."""


class ExecResult(BaseModel):
    """The outcome of one command."""

    exit_code: int | None = Field(description="None when killed for the timeout; negative = killed by a signal.")
    timed_out: bool
    duration_s: float
    log_path: Path = Field(description="Combined stdout and stderr.")
    isolation: Isolation
    limits_hit: list[LimitHit] = Field(default_factory=list, description="Sandbox limits the command ran into.")
    path: Literal["cold", "template"] = Field(
        default="cold", description="'cold': a new process in a new sandbox; 'template': a pre-warmed template's child."
    )


class Sandbox(Protocol):
    """Runs a command with `workspace` (and `writable`) as its only writable places."""

    def exec(
        self,
        cmd: list[str],
        workspace: Path,
        timeout_s: float,
        log_path: Path,
        env: dict[str, str] | None = None,
        readonly: list[Path] | None = None,
        writable: list[Path] | None = None,
    ) -> ExecResult:
        """Run `cmd` in `workspace`. `readonly` and `writable` are extra host paths (files or folders, inside the
        workspace or not) made visible at the same path, read-only or writable. Nothing else of the host is."""
        ...

    def isolation(self) -> Isolation:
        """The isolation this backend will provide on this machine; raises IsolationError under 'full' if short."""
        ...
