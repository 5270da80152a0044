"""Per-sandbox cgroups (memory, pids), made under the harness's own cgroup, v1 or v2, where they are writable.

A memory cgroup limits the whole sandbox, tmpfs pages included (they are charged to the cgroup of the process
that writes them). The groups are created before the command starts, joined by the child before it execs, and
emptied and removed afterwards.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lmrbench.sandbox.uids import kill_until_gone

ROOT = Path("/sys/fs/cgroup")
Controller = Literal["memory", "pids"]
# The file that sets the limit, v1 then v2.
LIMIT_FILES: dict[Controller, tuple[str, str]] = {
    "memory": ("memory.limit_in_bytes", "memory.max"),
    "pids": ("pids.max", "pids.max"),
}


def _own_paths() -> dict[str, str]:
    """Controller (or '' for the v2 unified line) -> this process's cgroup path."""
    out: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, ctrls, path = line.split(":", 2)
            for ctrl in ctrls.split(",") if ctrls else [""]:
                out[ctrl] = path
    return out


def _candidates(ctrl: Controller) -> list[Path]:
    own = _own_paths()
    out = []
    if ctrl in own:  # v1 hierarchy for this controller
        out.append(ROOT / ctrl / own[ctrl].lstrip("/"))
    if "" in own and (ROOT / "cgroup.controllers").is_file():  # pure v2
        out.append(ROOT / own[""].lstrip("/"))
    return out


@functools.cache
def parent_for(ctrl: Controller) -> Path | None:
    """A folder under which this process can make a child cgroup with `ctrl`'s limit file, or None."""
    for parent in _candidates(ctrl):
        probe = parent / f"lmrbench-probe-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        try:
            probe.mkdir()
        except OSError:
            continue
        try:
            ok = any((probe / name).exists() for name in LIMIT_FILES[ctrl])
        finally:
            with contextlib.suppress(OSError):
                probe.rmdir()
        if ok:
            return parent
    return None


@dataclass
class Groups:
    """The cgroups of one sandbox; `procs_files` are what the child writes its pid into."""

    dirs: dict[Controller, Path] = field(default_factory=dict)

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def has(self, ctrl: Controller) -> bool:
        return ctrl in self.dirs

    def oom_kills(self) -> int:
        """How many processes the kernel killed for the memory limit (v1 oom_control, v2 memory.events)."""
        d = self.dirs.get("memory")
        if d is None:
            return 0
        for name in ("memory.oom_control", "memory.events"):
            with contextlib.suppress(OSError):
                for line in (d / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        return 0

    def pids_refused(self) -> int:
        """How many forks the pids limit refused."""
        d = self.dirs.get("pids")
        if d is None:
            return 0
        with contextlib.suppress(OSError, ValueError):
            for line in (d / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value)
        return 0


def _write_limit(group: Path, ctrl: Controller, value: int) -> None:
    v1, v2 = LIMIT_FILES[ctrl]
    name = v1 if (group / v1).exists() else v2
    (group / name).write_text(str(value))
    if ctrl == "memory":  # no swap beyond the limit either, where the kernel has the knob
        for swap, val in (("memory.memsw.limit_in_bytes", value), ("memory.swap.max", 0)):
            with contextlib.suppress(OSError):
                if (group / swap).exists():
                    (group / swap).write_text(str(val))


def _members(group: Path) -> list[int]:
    try:
        return [int(p) for p in (group / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def _empty_and_remove(group: Path) -> None:
    kill_until_gone(lambda: _members(group), 0.05)
    for _ in range(20):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)


@contextlib.contextmanager
def sandbox_groups(memory_bytes: int | None, max_pids: int | None) -> Iterator[Groups]:
    """Fresh cgroups for one command with the limits given (None: that controller is not wanted)."""
    groups = Groups()
    name = f"lmrbench-{uuid.uuid4().hex[:12]}"
    wanted: list[tuple[Controller, int | None]] = [("memory", memory_bytes), ("pids", max_pids)]
    try:
        for ctrl, value in wanted:
            parent = parent_for(ctrl) if value is not None else None
            if parent is None or value is None:
                continue
            group = parent / name
            with contextlib.suppress(FileExistsError):
                group.mkdir()
            groups.dirs[ctrl] = group
            _write_limit(group, ctrl, value)
        yield groups
    finally:
        for group in groups.dirs.values():
            _empty_and_remove(group)
