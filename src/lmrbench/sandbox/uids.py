"""Unprivileged host uids for sandboxes when the harness runs as root: one uid per concurrent sandbox.

A uid of its own makes the kernel's per-user limits (RLIMIT_NPROC) per sandbox, and keeps root-only host files
unreadable. Uids are handed out with lock files (flock), so concurrent harness processes never share one; a
uid's leftover processes are killed before it is handed out and when it is given back.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path


def processes_of(uid: int) -> list[int]:
    """Pids whose real uid is `uid`."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in Path(entry.path, "status").read_text().splitlines():
                if line.startswith("Uid:"):
                    if int(line.split()[1]) == uid:
                        out.append(int(entry.name))
                    break
    return out


def kill_until_gone(listed: Callable[[], list[int]], pause_s: float, tries: int = 100) -> None:
    """SIGKILL every pid `listed` returns, again and again, until it returns none (they may be forking)."""
    for _ in range(tries):
        pids = listed()
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(pause_s)


def kill_uid(uid: int) -> None:
    """SIGKILL every process of `uid` until none is left."""
    kill_until_gone(lambda: processes_of(uid), 0.02)


def _lock_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(path)
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise PermissionError(f"{path}: the uid lock folder must be ours and not writable by others")
    return path


@contextlib.contextmanager
def lease_uid(base: int, slots: int, lock_dir: Path, wait_s: float = 600.0) -> Iterator[int]:
    """Hold one free uid from [base, base + slots) for the duration of the block."""
    folder = _lock_dir(lock_dir)
    deadline = time.monotonic() + wait_s
    while True:
        for uid in range(base, base + slots):
            fd = os.open(folder / f"uid-{uid}", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                kill_uid(uid)
                yield uid
            finally:
                kill_uid(uid)
                os.close(fd)  # releases the lock
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"no free sandbox uid in [{base}, {base + slots}) after {wait_s:.0f} s")
        time.sleep(0.1)
