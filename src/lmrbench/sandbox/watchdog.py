"""Waits for a sandboxed command and enforces what the kernel does not: the wall clock, the workspace caps, and
(where no memory cgroup is writable) the memory of the whole process tree.

On a capped tmpfs (disk.py) the kernel enforces the workspace caps and the watchdog only stops a command that has
filled it (one statvfs a tick); elsewhere it walks the folders, summing blocks and counting entries, and adds the
files the process tree holds open after unlinking them (from /proc/PID/fd; a file only mapped, with no descriptor
left, is not seen)."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lmrbench.sandbox.base import LimitHit
from lmrbench.sandbox.disk import full

TICK_S = 0.2


def tree_usage(roots: list[Path], max_entries: int | None = None) -> tuple[int, int]:
    """(disk bytes, entries) under `roots`, never following a link; stops counting past `max_entries`."""
    total, count, stack = 0, 0, [str(r) for r in roots]
    while stack and (max_entries is None or count <= max_entries):
        with contextlib.suppress(OSError), os.scandir(stack.pop()) as it:
            for entry in it:
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    total += st.st_blocks * 512
                    count += 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
    return total, count


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(entry.path, "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        out.append(p)
        stack += children.get(p, [])
    return out


def unlinked_bytes(pid: int, roots: list[Path]) -> int:
    """Disk blocks of files on the roots' filesystems that the process tree holds open after unlinking them (no
    walk of the folders sees those)."""
    devices = {r.stat().st_dev for r in roots if r.exists()}
    seen: set[tuple[int, int]] = set()
    total = 0
    for p in descendants(pid):
        with contextlib.suppress(OSError):
            for name in os.listdir(f"/proc/{p}/fd"):
                with contextlib.suppress(OSError):
                    fd = f"/proc/{p}/fd/{name}"
                    if not os.readlink(fd).endswith(" (deleted)"):
                        continue
                    st = os.stat(fd)
                    if stat.S_ISREG(st.st_mode) and st.st_dev in devices and (st.st_dev, st.st_ino) not in seen:
                        seen.add((st.st_dev, st.st_ino))
                        total += st.st_blocks * 512
    return total


def tree_memory(pid: int) -> int:
    """Proportional set size of a process tree (shared pages split between their users)."""
    total = 0
    for p in descendants(pid):
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
                    break
    return total


@dataclass
class Watchdog:
    """Polls a running command; `wait` returns (exit code or None on timeout, timed out)."""

    timeout_s: float
    disk_roots: list[Path]
    disk_limit: int
    memory_limit: int | None = None  # None: a memory cgroup enforces it
    inode_limit: int | None = None
    disk_mount: Path | None = None  # the capped tmpfs the roots run on (disk.py), if any
    hits: list[LimitHit] = field(default_factory=list)

    def _full_at_exit(self) -> None:
        """A command that ran into a cap and exited before the next tick still records it."""
        hit = full(self.disk_mount) if self.disk_mount is not None else None
        if hit is not None:
            self.hits.append(hit)

    def _disk(self, pid: int) -> LimitHit | None:
        if self.disk_mount is not None:
            return full(self.disk_mount)
        used, entries = tree_usage(self.disk_roots, self.inode_limit)
        if used + unlinked_bytes(pid, self.disk_roots) > self.disk_limit:
            return "workspace"
        return "inodes" if self.inode_limit is not None and entries > self.inode_limit else None

    def _over(self, proc: subprocess.Popen[bytes], next_disk: float) -> tuple[LimitHit | None, float]:
        if self.memory_limit is not None and tree_memory(proc.pid) > self.memory_limit:
            return "memory", next_disk
        now = time.monotonic()
        if now >= next_disk:
            started = time.monotonic()
            hit = self._disk(proc.pid)
            next_disk = now + max(TICK_S, 10 * (time.monotonic() - started))  # a big tree is walked less often
            if hit is not None:
                return hit, next_disk
        return None, next_disk

    def wait(self, proc: subprocess.Popen[bytes], kill: Callable[[], None]) -> tuple[int | None, bool]:
        deadline = time.monotonic() + self.timeout_s
        next_disk = 0.0
        while True:
            try:
                code = proc.wait(timeout=min(TICK_S, max(0.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                pass
            else:
                self._full_at_exit()
                return code, False
            if time.monotonic() >= deadline:
                return None, True
            hit, next_disk = self._over(proc, next_disk)
            if hit is not None:
                self.hits.append(hit)
                kill()
                return proc.wait(), False
