"""Local backend: an allow-list filesystem view (bubblewrap), an unprivileged uid, namespaces, cgroups, rlimits.

Whatever runs here is treated as hostile. It sees the system paths, the Python installation in use and its own
workspace, and nothing else of the host (see view.py); it gets a scrubbed environment, no network, HOME and
TMPDIR inside the workspace, a wall-clock timeout that kills its whole process tree, and limits on memory (the
whole sandbox, tmpfs included), processes, file size, workspace bytes and inodes (disk.py) and tmpfs size.

When the harness runs as root, the command never runs as root: an outer bubblewrap (root, no user namespace, so
it can mount any host path the allow-list names) builds the view, `setpriv` drops to a host uid of the
sandbox's own with no capabilities, and an inner bubblewrap puts it in a user namespace that maps that uid to
itself, with further user namespaces disabled. As another user, one bubblewrap does all of it. Where the kernel
refuses something, the result records the weaker isolation it really had; `isolation='full'` refuses instead.
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
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from lmrbench.sandbox import cgroups, disk
from lmrbench.sandbox.base import ExecResult, Isolation, IsolationError, LimitHit, SandboxConfig
from lmrbench.sandbox.numerics import kernels_env
from lmrbench.sandbox.uids import lease_uid
from lmrbench.sandbox.view import view_args
from lmrbench.sandbox.watchdog import Watchdog

SAFE_ENV_KEYS = ("LANG", "LC_ALL", "TZ")
PROBE_UID = 65534  # 'nobody': only ever runs /usr/bin/true, for the start-up probe
MB = 1024 * 1024


def is_root() -> bool:
    return os.geteuid() == 0


@functools.cache
def _probe(cmd: tuple[str, ...]) -> bool:
    try:
        return subprocess.run(list(cmd), capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.cache
def _bwrap_usable(network: str, system_paths: tuple[str, ...]) -> bool:
    """Whether the full bubblewrap set-up runs here (checked once per process with /usr/bin/true)."""
    config = SandboxConfig(network=network, system_paths=system_paths)  # type: ignore[arg-type]
    try:
        with tempfile.TemporaryDirectory(prefix="lmrbench-probe-") as tmp:
            ws = Path(tmp).resolve()
            os.chmod(ws, 0o755)
            if is_root():
                os.chown(ws, PROBE_UID, PROBE_UID)
            argv = [*_bwrap_argv(config, ws, [], [], PROBE_UID), shutil.which("true") or "/bin/true"]
            return subprocess.run(argv, capture_output=True, timeout=20, cwd=ws).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _nested_userns_possible() -> bool:
    with contextlib.suppress(OSError, ValueError):
        return int(Path("/proc/sys/user/max_user_namespaces").read_text()) > 0
    return False


def _bwrap_argv(config: SandboxConfig, ws: Path, readonly: list[Path], writable: list[Path], uid: int) -> list[str]:
    """The full bubblewrap prefix (ending in '--') that runs a command as `uid` in the allow-list view."""
    bwrap = shutil.which("bwrap") or "bwrap"
    namespaces = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if config.network == "off":
        namespaces.append("--unshare-net")
    user = ["--unshare-user", "--disable-userns", "--uid", str(uid), "--gid", str(uid), "--cap-drop", "ALL"]
    common = ["--die-with-parent", "--new-session"]
    view = view_args(config, ws, readonly, writable)
    if not is_root():
        return [bwrap, *namespaces, *user, *common, *view, "--"]
    setpriv = shutil.which("setpriv") or "setpriv"
    drop = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"]
    inner = [bwrap, *user, "--dev-bind", "/", "/", "--die-with-parent", "--chdir", str(ws)]
    return [bwrap, *namespaces, *common, *view, "--", *drop, "--", *inner, "--"]


def give(uid: int, roots: list[Path], keep: list[Path]) -> None:
    """Make `roots` the sandbox uid's (never following a link), except the `keep` paths, which stay ours."""
    for root in roots:
        if root in keep or not root.exists():
            continue
        os.lchown(root, uid, uid)
        for folder, dirs, files in os.walk(root):
            here = Path(folder)
            dirs[:] = [d for d in dirs if here / d not in keep]
            for name in dirs + files:
                if here / name not in keep:
                    os.lchown(here / name, uid, uid)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the whole process group, whatever state the leader is in."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


class LocalSandbox:
    """Runs commands on this machine, as isolated as the kernel allows."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config or SandboxConfig()

    def _use_bwrap(self) -> bool:
        if self.config.filesystem == "none" or shutil.which("bwrap") is None:
            return False
        if is_root() and shutil.which("setpriv") is None:
            return False
        return _bwrap_usable(self.config.network, self.config.system_paths)

    def unshare_net_prefix(self) -> list[str] | None:
        if shutil.which("unshare") is None:
            return None
        cmd = ["unshare", "--net"] if is_root() else ["unshare", "--net", "--map-root-user"]
        return cmd if _probe((*cmd, "true")) else None

    def _memory_cgroup(self) -> bool:
        return self.config.cgroups == "auto" and cgroups.parent_for("memory") is not None

    def _pids_cgroup(self) -> bool:
        return self.config.cgroups == "auto" and cgroups.parent_for("pids") is not None

    def _measure(self) -> Isolation:
        bwrap = self._use_bwrap()
        if self.config.filesystem == "bwrap" and not bwrap:
            raise RuntimeError("filesystem='bwrap' was requested but bubblewrap is not usable here")
        net_ok = self.config.network == "off" and (bwrap or self.unshare_net_prefix() is not None)
        root = is_root()
        processes = "cgroup" if self._pids_cgroup() else ("uid-rlimit" if root else "rlimit")
        plain_as_mapped_root = not bwrap and not root and net_ok
        return Isolation(
            network="namespace" if net_ok else "none",
            filesystem="bwrap" if bwrap else "none",
            processes=processes,  # type: ignore[arg-type]
            memory="cgroup" if self._memory_cgroup() else "watchdog",
            capabilities="kept" if plain_as_mapped_root else "dropped",
            user_namespaces="blocked" if bwrap or not _nested_userns_possible() else "allowed",
            workspace_mb=self.config.workspace_mb,
            workspace_inodes=self.config.workspace_inodes,
            disk="tmpfs" if root else "watchdog",  # as exec finds it: a refused mount is recorded there
            tmp_mb=self.config.tmp_mb if bwrap else None,
        )

    def isolation(self) -> Isolation:
        iso = self._measure()
        if self.config.isolation == "full":
            missing = _short_of_full(iso, self.config)
            if missing:
                raise IsolationError("isolation='full' cannot be had on this machine: " + "; ".join(missing))
        return iso

    @contextlib.contextmanager
    def _identity(self) -> Iterator[int]:
        """The host uid the command runs as: a leased uid of its own as root, else our own uid."""
        if not is_root():
            yield os.getuid()
            return
        cfg = self.config
        with lease_uid(cfg.uid_base, cfg.uid_slots, cfg.uid_lock_dir) as uid:
            yield uid

    def _command(self, cmd: list[str], ws: Path, readonly: list[Path], writable: list[Path], iso: Isolation,
                 uid: int) -> list[str]:
        if iso.filesystem == "bwrap":
            inside = uid if is_root() else self.config.sandbox_uid
            return _bwrap_argv(self.config, ws, readonly, writable, inside) + cmd
        net = self.unshare_net_prefix() if iso.network == "namespace" else None
        prefix = [*(net or []), "--"] if net else []
        if is_root() and shutil.which("setpriv"):
            prefix += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                       "--bounding-set=-all", "--"]
        return prefix + cmd

    def child_env(self, workspace: Path, extra: dict[str, str] | None) -> dict[str, str]:
        env = {k: os.environ[k] for k in SAFE_ENV_KEYS if k in os.environ}
        env.update(
            PATH=f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            HOME=str(workspace / ".home"),
            TMPDIR=str(workspace / ".tmp"),
            USER="sandbox",  # the child's uid has no passwd entry: getpass.getuser() (alpaca-eval's import) asks
            LOGNAME="sandbox",
            OMP_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
            PYTHONHASHSEED="0",
            PYTHONDONTWRITEBYTECODE="1",
            PYTHONNOUSERSITE="1",
        )
        env.update(kernels_env(self.config.kernels))
        env.update(self._model_env())
        env.update(extra or {})
        return env

    _env = child_env  # the name tests of the scrubbed environment use

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

    def _preexec(self, procs_files: list[str], drop_to: int | None) -> None:
        """Runs in the child before exec: join the cgroups, set rlimits, and (without setpriv) drop root."""
        for name in procs_files:
            with open(name, "w") as fh:
                fh.write(str(os.getpid()))
        cfg = self.config
        mem, fsize = cfg.memory_mb * MB, cfg.max_file_mb * MB
        if not cfg.gpus:  # CUDA reserves far more address space than it uses
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_NPROC, (cfg.max_processes, cfg.max_processes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if drop_to is not None:
            os.setgroups([])
            os.setgid(drop_to)
            os.setuid(drop_to)

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
        iso = self.isolation()
        workspace = workspace.resolve()
        if self.config.hf_cache is not None and self.config.hf_cache.is_dir():
            readonly = [*(readonly or []), self.config.hf_cache]
        readonly = [p.resolve() for p in readonly or [] if os.path.lexists(p)]
        writable = [p.resolve() for p in writable or [] if os.path.lexists(p)]
        for sub in (".home", ".tmp"):
            (workspace / sub).mkdir(parents=True, exist_ok=True)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        cfg = self.config
        with self._identity() as uid, \
                disk.capped([workspace, *writable], cfg.workspace_mb * MB, cfg.workspace_inodes) as mount, \
                open(log_path, "wb") as log:
            if is_root():
                give(uid, [workspace, *writable], keep=readonly)
            code, timed_out, hits = self._run(cmd, workspace, readonly, writable, iso, uid, env, timeout_s, log,
                                              mount)
        iso = iso.model_copy(update={"uid": uid, "disk": "watchdog" if mount is None else "tmpfs"})
        return ExecResult(exit_code=code, timed_out=timed_out, duration_s=round(time.monotonic() - start, 3),
                          log_path=log_path, isolation=iso, limits_hit=hits)

    def _run(self, cmd: list[str], ws: Path, readonly: list[Path], writable: list[Path], iso: Isolation, uid: int,
             env: dict[str, str] | None, timeout_s: float, log: BinaryIO,
             mount: Path | None) -> tuple[int | None, bool, list[LimitHit]]:
        cfg = self.config
        mem = cfg.memory_mb * MB
        drop_to = uid if is_root() and iso.filesystem != "bwrap" and not shutil.which("setpriv") else None
        with cgroups.sandbox_groups(mem if iso.memory == "cgroup" else None,
                                    cfg.max_processes if iso.processes == "cgroup" else None) as groups:
            proc = subprocess.Popen(
                self._command(cmd, ws, readonly, writable, iso, uid),
                cwd=ws,
                env=self.child_env(ws, env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=functools.partial(self._preexec, groups.procs_files, drop_to),
            )
            dog = Watchdog(timeout_s, [ws, *writable], cfg.workspace_mb * MB, None if groups.has("memory") else mem,
                           cfg.workspace_inodes, mount)
            try:
                code, timed_out = dog.wait(proc, functools.partial(_kill_group, proc))
            finally:
                _kill_group(proc)
            hits = list(dog.hits)
            if groups.oom_kills() and "memory" not in hits:
                hits.append("memory")
            if groups.pids_refused():
                hits.append("processes")
        return code, timed_out, hits


def _short_of_full(iso: Isolation, config: SandboxConfig) -> list[str]:
    """What keeps `iso` from full isolation, one phrase each."""
    missing = []
    if iso.filesystem != "bwrap":
        missing.append("no allow-list filesystem view (install bubblewrap; as root it also needs setpriv)")
    if config.network == "off" and iso.network != "namespace":
        missing.append("no network namespace")
    if iso.processes not in ("cgroup", "uid-rlimit"):
        missing.append("no per-sandbox process limit (no writable pids cgroup, and not root to use a uid of its own)")
    if iso.memory != "cgroup":
        missing.append("no memory cgroup for the whole sandbox (only a polling watchdog)")
    if iso.capabilities != "dropped":
        missing.append("capabilities kept")
    if iso.user_namespaces != "blocked":
        missing.append("nested user namespaces allowed")
    if iso.disk != "tmpfs":
        missing.append("workspace caps only polled by the watchdog (a capped tmpfs needs root)")
    return missing
