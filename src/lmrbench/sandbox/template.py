"""Template backend: the same `Sandbox.exec`, served by a pre-warmed template process instead of a new one.

A `python -P SCRIPT ARGS` command is handed to a template process (sandbox/scripts/template_server.py) of that
interpreter, which has already imported the environment's heavy libraries (only those the task declares). It
forks a child that enters fresh mount, PID, network, IPC, UTS and user namespaces, sees the same allow-list
view as the bubblewrap backend (system paths and the Python installation read-only, the workspace and the
writable paths, size-capped /tmp and /dev/shm), joins the same cgroups, runs as the same leased unprivileged
uid with no capabilities and no nested user namespaces, and runs the command in-process. The template itself
never runs candidate code and is replaced after `max_forks` children.

Anything else (another command, a kernel that refuses, the harness not being root) runs on the cold
`LocalSandbox`, and the result's `path` says which ran.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from lmrbench.sandbox import cgroups, disk
from lmrbench.sandbox.base import ExecResult, Isolation, LimitHit, SandboxConfig
from lmrbench.sandbox.local import MB, LocalSandbox, give, is_root
from lmrbench.sandbox.scripts import script
from lmrbench.sandbox.uids import lease_uid
from lmrbench.sandbox.view import masks, python_roots
from lmrbench.sandbox.watchdog import Watchdog

SERVER = script("template_server.py")
SETUP_FAILED = 125
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


def message(job: dict[str, Any]) -> bytes:
    """A job as the template reads it: its length line, then its JSON (read exactly: see template_server.py)."""
    data = json.dumps(job).encode()
    return str(len(data)).encode() + b"\n" + data


class TemplateError(RuntimeError):
    """The template could not start or stopped answering."""


class _Job:
    """What `Watchdog` needs of a process: a pid and `wait(timeout)`."""

    def __init__(self) -> None:
        self.started: Future[int] = Future()
        self.done: Future[dict[str, Any]] = Future()

    @property
    def pid(self) -> int:
        return self.started.result(timeout=30)

    def wait(self, timeout: float | None = None) -> int | None:
        try:
            reply = self.done.result(timeout=timeout)
        except TimeoutError as exc:
            raise subprocess.TimeoutExpired("template job", timeout or 0) from exc
        return reply.get("exit_code")


class Template:
    """One template process: an interpreter with some libraries imported, forking a child per job."""

    def __init__(self, python: str, preload: tuple[str, ...], env: dict[str, str], net_prefix: list[str]) -> None:
        self.python, self.preload = python, preload
        self.forks = 0
        self._lock = threading.Lock()
        self._jobs: dict[int, _Job] = {}
        self._next = 0
        self.proc = subprocess.Popen([*net_prefix, python, "-P", str(SERVER), ",".join(preload)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, cwd="/", start_new_session=True)
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        if not ready.startswith(b'{"id": -1, "ready": true'):
            self.close()
            raise TemplateError(f"template for {python} did not start")
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with contextlib.suppress(ValueError, KeyError):
                reply = json.loads(line)
                job = self._jobs.get(int(reply["id"]))
                if job is None:
                    continue
                if "pid" in reply and "exit_code" not in reply:
                    job.started.set_result(int(reply["pid"]))
                    continue
                self._jobs.pop(int(reply["id"]), None)
                if not job.started.done():
                    job.started.set_result(-1)
                job.done.set_result(reply)
        for job in list(self._jobs.values()):  # the template died: every job in flight fails over
            if not job.started.done():
                job.started.set_result(-1)
            if not job.done.done():
                job.done.set_exception(TemplateError("template stopped"))

    def submit(self, spec: dict[str, Any]) -> _Job:
        job = _Job()
        with self._lock:
            job_id = self._next
            self._next += 1
            self.forks += 1
            self._jobs[job_id] = job
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write(message({"id": job_id, **spec}))
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError) as exc:
                self._jobs.pop(job_id, None)
                raise TemplateError("template is gone") from exc
        return job

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        """Stop taking jobs; the process exits once its children have."""
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin:
                self.proc.stdin.close()


class TemplateSandbox:
    """`Sandbox` whose Python commands run in children of pre-warmed templates; the rest runs cold."""

    def __init__(self, config: SandboxConfig | None = None, preload: tuple[str, ...] = (),
                 max_forks: int = 256) -> None:
        self.config = config or SandboxConfig()
        self.cold = LocalSandbox(self.config)
        self.preload = tuple(preload)  # what the pool chose for the task (sandbox/pool.py: template_preload)
        self.max_forks = max_forks
        self._templates: dict[str, Template] = {}
        self._lock = threading.Lock()
        self._disabled = ""

    # ---------------------------------------------------------------- the Sandbox interface

    def isolation(self) -> Isolation:
        return self.cold.isolation()

    def exec(self, cmd: list[str], workspace: Path, timeout_s: float, log_path: Path,
             env: dict[str, str] | None = None, readonly: list[Path] | None = None,
             writable: list[Path] | None = None) -> ExecResult:
        iso = self.cold.isolation()  # raises under isolation='full' when the machine falls short
        if not self._usable(cmd, iso):
            return self.cold.exec(cmd, workspace, timeout_s, log_path, env, readonly, writable)
        result = self._exec_template(cmd, workspace, timeout_s, log_path, env, readonly or [], writable or [], iso)
        if result is None:  # the child could not isolate itself: run it cold, and say so
            return self.cold.exec(cmd, workspace, timeout_s, log_path, env, readonly, writable)
        return result

    def why_not(self) -> str:
        """Why the template path is off ('' when it is on)."""
        return self._disabled

    # ---------------------------------------------------------------- internals

    def _usable(self, cmd: list[str], iso: Isolation) -> bool:
        if self._disabled:
            return False
        if not is_root() or sys.platform != "linux" or os.uname().machine != "x86_64":
            self._disabled = "needs root on x86-64 Linux to set up namespaces"
            return False
        if self.config.network == "on" or iso.network != "namespace" or self.config.gpus or self.config.hf_cache:
            return False  # device nodes and model caches: the cold sandbox mounts those
        return len(cmd) >= 3 and cmd[1] == "-P" and Path(cmd[0]).is_file()

    def _template(self, python: str) -> Template:
        with self._lock:
            current = self._templates.get(python)
            if current is not None and current.alive() and current.forks < self.max_forks:
                return current
            if current is not None:
                current.close()
            env = self.cold.child_env(Path("/nonexistent"), {})
            env.pop("HOME")
            env.pop("TMPDIR")
            net = ["unshare", "--net", "--"] if self.cold.unshare_net_prefix() else []
            fresh = Template(python, self.preload, env, net)
            self._templates[python] = fresh
            return fresh

    def _policy(self, ws: Path, readonly: list[Path], writable: list[Path], uid: int,
                groups: list[str]) -> dict[str, Any]:
        cfg = self.config
        binds = [[p, "ro"] for p in cfg.system_paths if os.path.exists(p)]
        binds += [[str(r), "ro"] for r in python_roots()]
        binds += [[str(m), "mask"] for m in masks([Path(b[0]) for b in binds])]  # the harness's hidden folders
        extras = [(str(ws), "rw")] + [(str(p), "ro") for p in readonly] + [(str(p), "rw") for p in writable]
        binds += [list(e) for e in sorted(extras, key=lambda e: len(Path(e[0]).parts))]
        rlimits = {"RLIMIT_AS": cfg.memory_mb * MB, "RLIMIT_FSIZE": cfg.max_file_mb * MB,
                   "RLIMIT_NPROC": cfg.max_processes, "RLIMIT_CORE": 0}
        return {"binds": binds, "tmpfs": [["/tmp", cfg.tmp_mb], ["/dev/shm", cfg.tmp_mb]], "devices": list(DEVICES),
                "uid": uid, "gid": uid, "rlimits": rlimits, "cgroups": groups, "root_mb": 16}

    def _exec_template(self, cmd: list[str], ws: Path, timeout_s: float, log_path: Path, env: dict[str, str] | None,
                       readonly: list[Path], writable: list[Path], iso: Isolation) -> ExecResult | None:
        cfg = self.config
        ws = ws.resolve()
        readonly = [p.resolve() for p in readonly if os.path.lexists(p)]
        writable = [p.resolve() for p in writable if os.path.lexists(p)]
        for sub in (".home", ".tmp"):
            (ws / sub).mkdir(parents=True, exist_ok=True)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        mem = cfg.memory_mb * MB
        with lease_uid(cfg.uid_base, cfg.uid_slots, cfg.uid_lock_dir) as uid, \
                disk.capped([ws, *writable], cfg.workspace_mb * MB, cfg.workspace_inodes) as mount, \
                cgroups.sandbox_groups(mem if iso.memory == "cgroup" else None,
                                       cfg.max_processes if iso.processes == "cgroup" else None) as groups:
            give(uid, [ws, *writable], keep=readonly)
            policy = self._policy(ws, readonly, writable, uid, [str(Path(f).parent) for f in groups.procs_files])
            spec = {"argv": cmd, "env": self.cold.child_env(ws, env), "cwd": str(ws), "log": str(log_path.resolve()),
                    "timeout": timeout_s + 30, "policy": policy}
            try:
                job = self._template(cmd[0]).submit(spec)
                code, timed_out, hits = self._wait(job, [ws, *writable], timeout_s, mem, groups, mount)
            except TemplateError:
                return None
            if groups.oom_kills() and "memory" not in hits:
                hits.append("memory")
            if groups.pids_refused():
                hits.append("processes")
        if code == SETUP_FAILED and b"lmrbench-template: isolation failed" in _tail(log_path):
            self._disabled = "a child could not isolate itself (see its log)"
            return None
        template_iso = iso.model_copy(update={"uid": uid, "filesystem": "template", "capabilities": "dropped",
                                              "user_namespaces": "blocked", "tmp_mb": cfg.tmp_mb,
                                              "disk": "watchdog" if mount is None else "tmpfs"})
        return ExecResult(exit_code=code, timed_out=timed_out, duration_s=round(time.monotonic() - start, 3),
                          log_path=log_path, isolation=template_iso, limits_hit=hits, path="template")

    def _wait(self, job: _Job, roots: list[Path], timeout_s: float, mem: int, groups: cgroups.Groups,
              mount: Path | None) -> tuple[int | None, bool, list[LimitHit]]:
        cfg = self.config
        dog = Watchdog(timeout_s, roots, cfg.workspace_mb * MB, None if groups.has("memory") else mem,
                       cfg.workspace_inodes, mount)

        def kill() -> None:
            with contextlib.suppress(ProcessLookupError, PermissionError, TimeoutError):
                if job.pid > 0:
                    os.killpg(job.pid, 9)

        try:
            code, timed_out = dog.wait(job, kill)  # type: ignore[arg-type]
        finally:
            if not job.done.done():
                kill()
        if timed_out:
            kill()
            with contextlib.suppress(Exception):
                job.done.result(timeout=30)
        return code, timed_out, list(dog.hits)


def _tail(path: Path, size: int = 4096) -> bytes:
    with contextlib.suppress(OSError), open(path, "rb") as fh:
        fh.seek(max(0, os.fstat(fh.fileno()).st_size - size))
        return fh.read()
    return b""
