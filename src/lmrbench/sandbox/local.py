"""Local backend: bubblewrap (when installed) + network namespace + pids cgroup + rlimits.

Whatever runs here is treated as hostile: it gets a scrubbed environment, no network, a read-only view of the
system with the harness's own files (tasks, references, runs, home) hidden, HOME and TMPDIR inside the
workspace, a wall-clock timeout that kills its whole process tree, and limits on memory, processes and file
size. Where the kernel refuses something, the result records the weaker isolation it really had.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from lmrbench.sandbox.base import ExecResult, Isolation, SandboxConfig

SAFE_ENV_KEYS = ("LANG", "LC_ALL", "TZ")
CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


@functools.cache
def _probe(cmd: tuple[str, ...]) -> bool:
    try:
        return subprocess.run(list(cmd), capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _is_root() -> bool:
    return os.geteuid() == 0


def _python_roots() -> list[Path]:
    """Folders the sandboxed interpreter needs to see (venv and base install)."""
    roots = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve().parent}
    return sorted(roots)


@functools.cache
def _cgroup_root() -> Path | None:
    """A writable pids-cgroup folder (v1 `pids` hierarchy or a v2 root with the pids controller)."""
    for root in CGROUP_ROOTS:
        probe = root / f"lmrbench-probe-{os.getpid()}"
        try:
            probe.mkdir()
            ok = (probe / "pids.max").exists()
            probe.rmdir()
        except OSError:
            continue
        if ok:
            return root
    return None


@contextlib.contextmanager
def _pids_cgroup(limit: int) -> Iterator[Path | None]:
    """A fresh pids cgroup for one command, emptied and removed afterwards."""
    root = _cgroup_root()
    if root is None:
        yield None
        return
    group = root / f"lmrbench-{uuid.uuid4().hex[:12]}"
    group.mkdir()
    (group / "pids.max").write_text(str(limit))
    try:
        yield group
    finally:
        for _ in range(50):
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
        with contextlib.suppress(OSError):
            group.rmdir()


class LocalSandbox:
    """Runs commands on this machine, as isolated as the kernel allows."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config or SandboxConfig()

    def _use_bwrap(self) -> bool:
        if self.config.filesystem == "none" or shutil.which("bwrap") is None:
            return False
        return _probe(("bwrap", "--ro-bind", "/", "/", "--unshare-all", "true"))

    def _unshare_net_prefix(self) -> list[str] | None:
        if shutil.which("unshare") is None:
            return None
        cmd = ["unshare", "--net"] if _is_root() else ["unshare", "--net", "--map-root-user"]
        return cmd if _probe((*cmd, "true")) else None

    def isolation(self) -> Isolation:
        bwrap = self._use_bwrap()
        if self.config.filesystem == "bwrap" and not bwrap:
            raise RuntimeError("filesystem='bwrap' was requested but bubblewrap is not usable here")
        net_ok = self.config.network == "off" and (bwrap or self._unshare_net_prefix() is not None)
        procs = "cgroup" if _cgroup_root() is not None else ("rlimit" if not _is_root() else "none")
        return Isolation(
            network="namespace" if net_ok else "none",
            filesystem="bwrap" if bwrap else "none",
            processes=procs,  # type: ignore[arg-type]
        )

    def _bwrap_args(self, workspace: Path, readonly: list[Path], hide: list[Path]) -> list[str]:
        args = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        home = Path(os.path.expanduser("~")).resolve()
        for path in [home, *hide]:
            if path.exists() and path != Path("/"):
                args += ["--tmpfs", str(path.resolve())]
        for path in _python_roots():
            args += ["--ro-bind", str(path), str(path)]
        if self.config.hf_cache is not None and self.config.hf_cache.is_dir():
            cache = str(self.config.hf_cache.resolve())
            args += ["--ro-bind", cache, cache]
        if self.config.gpus:
            for dev in sorted(Path("/dev").glob("nvidia*")):
                args += ["--dev-bind", str(dev), str(dev)]
        args += ["--bind", str(workspace), str(workspace)]
        for path in readonly:
            args += ["--ro-bind", str(path), str(path)]
        uid = str(self.config.sandbox_uid)
        args += ["--unshare-all", "--uid", uid, "--gid", uid, "--die-with-parent", "--new-session"]
        args += ["--chdir", str(workspace)]
        if self.config.network == "on":
            args.append("--share-net")
        return [*args, "--"]

    def _command(self, cmd: list[str], workspace: Path, readonly: list[Path], hide: list[Path]) -> list[str]:
        if self._use_bwrap():
            return self._bwrap_args(workspace, readonly, hide) + cmd
        net = self._unshare_net_prefix() if self.config.network == "off" else None
        return (net or []) + cmd

    def _env(self, workspace: Path, extra: dict[str, str] | None) -> dict[str, str]:
        env = {k: os.environ[k] for k in SAFE_ENV_KEYS if k in os.environ}
        env.update(
            PATH=f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            HOME=str(workspace / ".home"),
            TMPDIR=str(workspace / ".tmp"),
            OMP_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
            PYTHONHASHSEED="0",
            PYTHONDONTWRITEBYTECODE="1",
            PYTHONNOUSERSITE="1",
        )
        env.update(self._model_env())
        env.update(extra or {})
        return env

    def _model_env(self) -> dict[str, str]:
        """Hugging Face cache (offline) and GPU visibility, when configured."""
        env: dict[str, str] = {}
        cache = self.config.hf_cache
        if cache is not None:
            cache = cache.resolve()
            hub = cache / "hub" if (cache / "hub").is_dir() else cache
            env |= {"HF_HUB_CACHE": str(hub), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                    "HF_DATASETS_OFFLINE": "1"}
            if hub != cache:
                env["HF_HOME"] = str(cache)
        if self.config.gpus and "CUDA_VISIBLE_DEVICES" in os.environ:
            env["CUDA_VISIBLE_DEVICES"] = os.environ["CUDA_VISIBLE_DEVICES"]
        return env

    def _preexec(self, cgroup: Path | None) -> None:
        """Runs in the child before exec: join the pids cgroup, set rlimits."""
        if cgroup is not None:
            (cgroup / "cgroup.procs").write_text(str(os.getpid()))
        if not self.config.gpus:  # CUDA reserves far more address space than it uses
            mem = self.config.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        fsize = self.config.max_file_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_NPROC, (self.config.max_processes, self.config.max_processes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

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
        workspace = workspace.resolve()
        readonly = [p.resolve() for p in readonly or []]
        hide = [p.resolve() for p in hide or []]
        for sub in (".home", ".tmp"):
            (workspace / sub).mkdir(parents=True, exist_ok=True)
        full = self._command(cmd, workspace, readonly, hide)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        timed_out = False
        with open(log_path, "wb") as log, _pids_cgroup(self.config.max_processes) as cgroup:
            proc = subprocess.Popen(
                full,
                cwd=workspace,
                env=self._env(workspace, env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=functools.partial(self._preexec, cgroup),
            )
            try:
                code: int | None = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                code = None
            finally:
                _kill_group(proc)
        return ExecResult(
            exit_code=code,
            timed_out=timed_out,
            duration_s=round(time.monotonic() - start, 3),
            log_path=log_path,
            isolation=self.isolation(),
        )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the whole process group, whatever state the leader is in."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
