"""Build, cache and attach per-task environments.

Each environment is a virtual environment made with uv under `<cache>/envs/<key>`, keyed by a hash of the task's
requirement inputs and the Python version, and layered over the harness's own site-packages (a `.pth` file
appends them): torch, numpy, scipy and pandas come from the harness and are excluded from every resolution, so
that no CUDA build is ever downloaded. A requirement that cannot be installed is recorded by name; the task's
results that do not pass are then `error` with that cause.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lmrbench.cachedir import cache_root
from lmrbench.envs.compat import RESOLVED, Substitution, repair_imports, resolve_compatible
from lmrbench.envs.spec import EnvSpec, env_spec, requirement_name
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Layout, Task, TaskEnv

EnvMode = Literal["task", "shared"]
RECORD = "lmrbench-env.json"
HARNESS_PTH = "_lmrbench_harness.pth"


class EnvBuildError(RuntimeError):
    """The environment cannot be built at all (no uv, no interpreter)."""


class EnvStatus(StrEnum):
    READY = "ready"
    PARTIAL = "partial"


class FailedRequirement(BaseModel):
    requirement: str
    reason: str = Field(description="Last line of the installer's error.")


class EnvRecord(BaseModel):
    """What was built: stored beside the environment, read back when it is reused."""

    task_id: str
    key: str
    status: EnvStatus
    installed: list[str] = Field(default_factory=list, description="Requirements installed.")
    failed: list[FailedRequirement] = Field(default_factory=list)
    substituted: list[Substitution] = Field(default_factory=list, description="Requirements replaced by a release "
                                            "that fits the harness's torch, numpy, scipy and pandas.")
    seconds: float = Field(default=0.0, description="Build time.")
    reused: bool = Field(default=False, description="Found in the cache; not built by this call.")


class EnvConfig(BaseModel):
    """Where and how task environments are built."""

    cache_dir: Path = Field(default_factory=cache_root, description="Environments go under <cache>/envs.")
    workers: int = Field(default=2, ge=1, description="Environments built in parallel.")
    timeout_s: int = Field(default=1800, ge=10, description="Limit of one installer call.")
    resolve_timeout_s: int = Field(default=900, ge=10, description="Limit of the resolution with the harness's "
                                   "versions (all its rounds); past it the requirements are installed as asked.")


def uv_binary() -> str:
    """The uv executable: beside the interpreter (a venv's bin), the `uv` package's, or on PATH."""
    here = Path(sys.executable).parent / "uv"
    if here.is_file():
        return str(here)
    try:
        import uv  # type: ignore[import-not-found]

        return str(uv.find_uv_bin())
    except (ImportError, FileNotFoundError):
        pass
    found = shutil.which("uv")
    if found is None:
        raise EnvBuildError("uv is not installed (pip install -r requirements.txt installs it)")
    return found


def env_root(config: EnvConfig, spec: EnvSpec) -> Path:
    return config.cache_dir / "envs" / spec.key()[:24]


def _uv(args: list[str], config: EnvConfig, cwd: Path, timeout_s: float | None = None
        ) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, UV_CACHE_DIR=str(config.cache_dir / "uv"), UV_PYTHON_DOWNLOADS="never",
               UV_NO_PROGRESS="1")
    env.pop("VIRTUAL_ENV", None)
    limit = timeout_s or config.timeout_s
    try:
        return subprocess.run([uv_binary(), *args], capture_output=True, text=True, timeout=limit, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, 124, "", f"installer timed out after {limit:.0f} s")


def _last_error(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [ln.strip() for ln in (proc.stderr or proc.stdout or "").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower() or "×" in ln or "╰─▶" in ln]
    return (errors or lines or [f"exit code {proc.returncode}"])[-1][:300]


def _make_venv(tmp: Path, config: EnvConfig) -> None:
    proc = _uv(["venv", "--python", sys.executable, str(tmp)], config, tmp.parent)
    if proc.returncode != 0:
        raise EnvBuildError(f"uv venv failed: {_last_error(proc)}")
    harness = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    site = next((tmp / "lib").glob("python*/site-packages"))
    (site / HARNESS_PTH).write_text("".join(f"{p}\n" for p in harness), encoding="utf-8")


def _compatible(spec: EnvSpec, task: Task, tmp: Path, config: EnvConfig
                ) -> tuple[list[str], list[FailedRequirement], list[Substitution]]:
    """Install the requirements, each one that conflicts with the harness (by metadata, or at import) replaced by
    a release that fits it (envs/compat.py)."""
    resolver = lambda args, limit: _uv(args, config, tmp, limit)  # noqa: E731
    wanted, subs = resolve_compatible(spec, tmp, resolver, config.resolve_timeout_s)
    installed, failed = _install_all(spec.model_copy(update={"requirements": wanted}), task, tmp, config)
    ok = [r for r in wanted if r in installed]
    repaired = repair_imports(ok, tmp, resolver, lambda items: _install(items, tmp, config, resolved=False))
    now = {s.requirement: s.installed for s in repaired}
    return [now.get(r, r) for r in installed], failed, subs + repaired


def _install(items: list[str], tmp: Path, config: EnvConfig, resolved: bool = True
             ) -> subprocess.CompletedProcess[str]:
    """uv pip install, the harness's packages excluded; with `resolved`, every version is held to the resolution
    made with the harness's versions (RESOLVED, when there is one), so that an unpinned requirement gets the
    release that fits the harness's torch, not the newest."""
    excludes = tmp / "lmrbench-excludes.txt"
    pins = ["--constraints", str(tmp / RESOLVED)] if resolved and (tmp / RESOLVED).is_file() else []
    return _uv(["pip", "install", "--python", str(tmp / "bin" / "python"), "--excludes", str(excludes), *pins, *items],
               config, tmp)


def _culprit(error: str, items: list[str], labels: list[str]) -> int | None:
    """Index of the requirement the installer's error names first, if any."""
    text = error.lower()
    best: tuple[int, int] | None = None
    for i, label in enumerate(labels):
        name = requirement_name(items[i]) or label
        for form in {name, name.replace("-", "_")}:
            pos = text.find(form.lower())
            if pos >= 0 and (best is None or pos < best[0]):
                best = (pos, i)
    return best[1] if best else None


def _install_all(spec: EnvSpec, task: Task, tmp: Path, config: EnvConfig) -> tuple[list[str], list[FailedRequirement]]:
    """Everything at once; when that fails, drop the requirement the error names and retry, and when the error
    names none of them, install the rest one by one; each requirement that fails is named."""
    items = spec.requirements + [str(task.repo_dir / p) for p in spec.local]
    labels = spec.requirements + [f"{p} (local package)" for p in spec.local]
    failed = [FailedRequirement(requirement=u, reason="does not parse as a requirement") for u in spec.unreadable]
    (tmp / "lmrbench-excludes.txt").write_text("".join(f"{p}\n" for p in spec.excluded()), encoding="utf-8")
    while items:
        proc = _install(items, tmp, config)
        if proc.returncode == 0:
            return labels, failed
        bad = _culprit(proc.stderr, items, labels)
        if bad is None:
            break
        failed.append(FailedRequirement(requirement=labels[bad], reason=_last_error(proc)))
        del items[bad], labels[bad]
    installed = []
    for item, label in zip(items, labels, strict=True):
        proc = _install([item], tmp, config)
        if proc.returncode == 0:
            installed.append(label)
        else:
            failed.append(FailedRequirement(requirement=label, reason=_last_error(proc)))
    return installed, failed


def _drop_local_copies(tmp: Path, config: EnvConfig) -> None:
    """Uninstall the local packages themselves, keeping their dependencies: the copy installed is the pristine
    (masked) repository's, and a test must import the workspace's (it is put on sys.path at run time)."""
    proc = _uv(["pip", "list", "--python", str(tmp / "bin" / "python"), "--format", "json"], config, tmp)
    try:
        dists = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        return
    names = [d["name"] for d in dists if _is_local(tmp, d)]
    if names:
        _uv(["pip", "uninstall", "--python", str(tmp / "bin" / "python"), *names], config, tmp)


def _is_local(tmp: Path, dist: object) -> bool:
    if not isinstance(dist, dict):
        return False
    site = next((tmp / "lib").glob("python*/site-packages"))
    name = str(dist.get("name", "")).replace("-", "_")
    for info in site.glob(f"{name}-*.dist-info"):
        direct = info / "direct_url.json"
        if direct.is_file() and '"url": "file://' in direct.read_text(encoding="utf-8", errors="replace"):
            return True
    return False


def build_env(task: Task, config: EnvConfig, rebuild: bool = False) -> EnvRecord:
    """The task's environment, from the cache when its key is there, else built now."""
    spec = env_spec(task)
    root = env_root(config, spec)
    record_path = root / RECORD
    if record_path.is_file() and not rebuild:
        return EnvRecord.model_validate_json(record_path.read_text(encoding="utf-8")).model_copy(
            update={"reused": True, "task_id": task.task_id})
    start = time.monotonic()
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = root.parent / f"{root.name}.tmp-{os.getpid()}-{time.monotonic_ns()}"
    try:
        _make_venv(tmp, config)
        installed, failed, subs = _compatible(spec, task, tmp, config)
        if spec.local:
            _drop_local_copies(tmp, config)
        record = EnvRecord(task_id=task.task_id, key=spec.key(), installed=installed, failed=failed,
                           substituted=subs,
                           status=EnvStatus.PARTIAL if failed else EnvStatus.READY,
                           seconds=round(time.monotonic() - start, 1))
        (tmp / RECORD).write_text(record.model_dump_json(indent=1), encoding="utf-8")
        if root.exists():
            shutil.rmtree(root)
        tmp.rename(root)
        return record
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def task_env(task: Task, config: EnvConfig, record: EnvRecord) -> TaskEnv:
    spec = env_spec(task)
    root = env_root(config, spec)
    return TaskEnv(python=root / "bin" / "python", root=root, key=record.key, paths=spec.sys_path(task.repo_dir),
                   failed=[f.requirement for f in record.failed], substituted=[s.line() for s in record.substituted])


def needs_env(task: Task, mode: EnvMode) -> bool:
    """Original-layout tasks get their own environment in mode 'task', and so do upstream tasks whose
    requirements the harness lacks (the release itself is never installed: the workspace copy is imported);
    the lite and main splits run in the harness's (shared)."""
    if mode != "task" or task.defect:
        return False
    if task.layout is Layout.ORIGINAL:
        return True
    return task.upstream is not None and bool(env_spec(task).requirements)


def build_envs(tasks: list[Task], config: EnvConfig, rebuild: bool = False,
               tick: Callable[[EnvRecord], None] | None = None) -> list[EnvRecord]:
    """Build (or reuse) the environments of several tasks in parallel."""
    out = []
    with ThreadPoolExecutor(max_workers=config.workers) as pool:
        futures = [pool.submit(build_env, t, config, rebuild) for t in tasks]
        for fut in as_completed(futures):
            rec = fut.result()
            out.append(rec)
            if tick:
                tick(rec)
    return sorted(out, key=lambda r: r.task_id)


def attach_envs(ts: TaskSet, ids: set[str], mode: EnvMode, config: EnvConfig,
                tick: Callable[[EnvRecord], None] | None = None) -> list[EnvRecord]:
    """Give each selected task that needs one its environment (built when not cached); returns the records."""
    chosen = [t for t in ts.tasks if t.task_id in ids and needs_env(t, mode)]
    records = {r.task_id: r for r in build_envs(chosen, config, tick=tick)}
    for task in chosen:
        task.env = task_env(task, config, records[task.task_id])
    return list(records.values())
