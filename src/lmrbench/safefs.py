"""Reading folders that model-written code controls: never follow a link, never block, never read past a cap.

Every path below a trusted root is opened one component at a time with O_NOFOLLOW, so a symlink anywhere on
the way (made by the candidate, possibly while we look) is an error, not a detour onto the host. Regular files
only: a FIFO or device is refused before it is read (O_NONBLOCK, then fstat).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class UnsafePath(ValueError):
    """A path that is a link, a special file, a hard link, too big or outside its root; the message says which."""


def _parts(rel: str | Path) -> tuple[str, ...]:
    parts = PurePosixPath(rel).parts
    if not parts or PurePosixPath(rel).is_absolute() or any(p in ("..", ".") for p in parts):
        raise UnsafePath(f"'{rel}' is not a plain relative path")
    return parts


def _open_dir_beneath(root_fd: int, parts: tuple[str, ...], shown: str) -> int:
    fd = os.dup(root_fd)
    try:
        for part in parts:
            try:
                nxt = os.open(part, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafePath(f"'{shown}': '{part}' is a symlink or not a folder") from exc
                raise
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_beneath(root: Path, rel: str | Path) -> int:
    """A read-only fd of the regular file `rel` under the trusted folder `root`; no component may be a link."""
    parts = _parts(rel)
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        dir_fd = _open_dir_beneath(root_fd, parts[:-1], str(rel))
    finally:
        os.close(root_fd)
    try:
        fd = os.open(parts[-1], FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(f"'{rel}' is a symlink") from exc
        raise
    finally:
        os.close(dir_fd)
    _check_regular(fd, str(rel))
    return fd


def _check_regular(fd: int, shown: str) -> os.stat_result:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UnsafePath(f"'{shown}' is not a regular file")
    return st


def _read_fd(fd: int, max_bytes: int, shown: str) -> bytes:
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise UnsafePath(f"'{shown}' has {size:,} bytes, over the {max_bytes:,}-byte cap")
        chunks, total = [], 0
        while chunk := os.read(fd, min(1 << 20, max_bytes + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise UnsafePath(f"'{shown}' grew over the {max_bytes:,}-byte cap")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_beneath(root: Path, rel: str | Path, max_bytes: int) -> bytes:
    """The bytes of regular file `rel` under trusted `root`, at most `max_bytes` (else UnsafePath)."""
    return _read_fd(open_beneath(root, rel), max_bytes, str(rel))


def read_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of `path` (its folders trusted, the file itself not): no link, regular, at most `max_bytes`."""
    try:
        fd = os.open(path, FILE_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(f"'{path}' is a symlink") from exc
        raise
    _check_regular(fd, str(path))
    return _read_fd(fd, max_bytes, str(path))


def read_tail(path: Path, max_bytes: int) -> str:
    """The last `max_bytes` of regular file `path` (no link followed), decoded leniently."""
    fd = os.open(path, FILE_FLAGS)
    try:
        st = _check_regular(fd, str(path))
        os.lseek(fd, max(0, st.st_size - max_bytes), os.SEEK_SET)
        data = os.read(fd, max_bytes)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    return data.decode("utf-8", errors="replace")


def walk_files(root: Path, skip: frozenset[str] = frozenset(), max_files: int = 100_000) -> Iterator[str]:
    """Relative paths of the regular files under `root`, refusing links, hard links and special files.

    Folders named in `skip` are not entered (and may hold anything). Raises UnsafePath at the first problem.
    """
    count = 0
    stack: list[tuple[int, str]] = [(os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), "")]
    try:
        while stack:
            fd, prefix = stack.pop()
            try:
                with os.scandir(fd) as it:
                    entries = sorted(it, key=lambda e: e.name)
                for entry in entries:
                    rel = f"{prefix}{entry.name}"
                    st = entry.stat(follow_symlinks=False)
                    if stat.S_ISDIR(st.st_mode):
                        if entry.name not in skip:
                            stack.append((_open_dir_beneath(fd, (entry.name,), rel), rel + "/"))
                        continue
                    _refuse_special(rel, st)
                    count += 1
                    if count > max_files:
                        raise UnsafePath(f"more than {max_files:,} files")
                    yield rel
            finally:
                os.close(fd)
    finally:
        for fd, _ in stack:
            os.close(fd)


def _refuse_special(rel: str, st: os.stat_result) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePath(f"'{rel}' is a symlink")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath(f"'{rel}' is a special file (device, FIFO or socket)")
    if st.st_nlink > 1:
        raise UnsafePath(f"'{rel}' is a hard link ({st.st_nlink} names)")
