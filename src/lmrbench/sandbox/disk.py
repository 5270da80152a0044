"""The sandbox's writable places on a filesystem of their own, capped in bytes and in inodes by the kernel.

A file written and unlinked while held open takes disk space that no walk of the folders can see, and empty
files take inodes that no byte count sees. So, as root, every writable place of a command (its workspace and the
caller's writable paths) moves for the duration onto one tmpfs mounted with `size=` (workspace_mb) and
`nr_inodes=` (workspace_inodes): a copy of each is bound over its host path, the command runs, and each host
path gets the tmpfs's contents back before the tmpfs goes. The kernel then refuses the write or the file past
either cap (ENOSPC), whoever holds it open, and the watchdog sees a full filesystem with one statvfs.

The copy back never follows a link, skips anything but folders, files and links (a FIFO would block it), keeps
hard links as links and holes as holes: it writes at most what the tmpfs held, however the command arranged it.
Folders nested more than MAX_DEPTH deep are left out, and so is anything else it cannot copy.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from lmrbench.sandbox.base import LimitHit

MS_NOSUID, MS_NODEV, MS_BIND = 2, 4, 4096
MNT_DETACH = 2
_CLEAR = stat.S_ISUID | stat.S_ISGID
MAX_DEPTH = 128  # folders copied back below a root, at most this deep


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _mount(src: str, dst: Path, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if v is None else v.encode() for v in (src, str(dst), fstype, data)]
    if _libc().mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {dst}: {os.strerror(err)}")


def _detach(path: Path) -> None:
    _libc().umount2(str(path).encode(), MNT_DETACH)


class _Copier:
    """Copies a tree without following links, keeping owners, modes (less set-id bits), hard links and holes."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict  # raise on the first failure (copying in); else leave that entry out (copying back)
        self.linked: dict[tuple[int, int], str] = {}

    def tree(self, src: str, dst: str) -> None:
        """Copy `src` to `dst`, iteratively; folders nested deeper than MAX_DEPTH below it are left out (a
        command may nest them thousands deep, past what a recursive delete or PATH_MAX allows)."""
        stack, folders = [(src, dst, 0)], []
        while stack:
            s, d, depth = stack.pop()
            try:
                st = os.lstat(s)
                if stat.S_ISDIR(st.st_mode):
                    if depth > MAX_DEPTH:
                        continue
                    os.mkdir(d, 0o700)
                    folders.append((d, st))  # its attributes once its contents are in
                    with os.scandir(s) as it:
                        stack += [(e.path, os.path.join(d, e.name), depth + 1) for e in it]
                    continue
                self._entry(s, d, st)
            except OSError:
                if self.strict:
                    raise  # e.g. more than the caps hold: the caller falls back
        for d, st in reversed(folders):
            with contextlib.suppress(OSError):
                self.attributes(d, st)

    def _entry(self, src: str, dst: str, st: os.stat_result) -> None:
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(src), dst)
        elif stat.S_ISREG(st.st_mode):
            self._file(src, dst, st)
        else:
            return  # FIFOs, sockets, device nodes: never copied
        self.attributes(dst, st)

    @staticmethod
    def attributes(dst: str, st: os.stat_result, now: os.stat_result | None = None) -> None:
        """Owner, mode (less set-id bits) and times of `st` on `dst` (whose lstat is `now`, if known), never
        following a link."""
        mode = stat.S_IMODE(st.st_mode) & ~_CLEAR
        if now is not None and (now.st_uid, now.st_gid, stat.S_IMODE(now.st_mode), now.st_mtime_ns) == (
                st.st_uid, st.st_gid, mode, st.st_mtime_ns):
            return
        os.lchown(dst, st.st_uid, st.st_gid)
        if not stat.S_ISLNK(st.st_mode):
            os.chmod(dst, mode)
            os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))

    def _file(self, src: str, dst: str, st: os.stat_result) -> None:
        key = (st.st_dev, st.st_ino)
        if st.st_nlink > 1 and key in self.linked:
            os.link(self.linked[key], dst)
            return
        self.linked[key] = dst
        fin = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            fout = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                _copy_data(fin, fout, st.st_size)
            finally:
                os.close(fout)
        finally:
            os.close(fin)


def _copy_data(fin: int, fout: int, size: int) -> None:
    """Copy the data segments only (SEEK_DATA/SEEK_HOLE), so a sparse file stays sparse."""
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fin, pos, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole is left
                break
            raise
        end = os.lseek(fin, start, os.SEEK_HOLE)
        while start < end:
            chunk = os.pread(fin, min(1 << 20, end - start), start)
            if not chunk:
                break
            os.pwrite(fout, chunk, start)
            start += len(chunk)
        pos = end
    os.ftruncate(fout, size)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _same(src: str, dst: str, s: os.stat_result, d: os.stat_result) -> bool:
    """Whether host entry `dst` already holds what `src` holds (a link's target, a file's bytes)."""
    if stat.S_ISLNK(s.st_mode) and stat.S_ISLNK(d.st_mode):
        return os.readlink(src) == os.readlink(dst)
    if not (stat.S_ISREG(s.st_mode) and stat.S_ISREG(d.st_mode)) or s.st_size != d.st_size:
        return False
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
    with open(os.open(src, flags), "rb") as a, open(os.open(dst, flags), "rb") as b:
        while True:
            chunk = a.read(1 << 20)
            if chunk != b.read(1 << 20):
                return False
            if not chunk:
                return True


def _sync(copier: _Copier, src: str, dst: str) -> None:
    """Make host folder `dst` hold what `src` holds: unchanged entries stay as they are (a host's metadata
    operations can cost milliseconds each), the rest is removed or copied."""
    wanted = {e.name: e for e in os.scandir(src)}
    for entry in os.scandir(dst):
        if entry.name not in wanted:
            _remove(entry.path)
    for name, entry in wanted.items():
        with contextlib.suppress(OSError):  # what cannot be copied back is left out
            _sync_entry(copier, entry, os.path.join(dst, name))


def _sync_entry(copier: _Copier, entry: os.DirEntry[str], target: str) -> None:
    s = entry.stat(follow_symlinks=False)
    d = os.lstat(target) if os.path.lexists(target) else None
    if d is not None and stat.S_ISDIR(s.st_mode) and stat.S_ISDIR(d.st_mode):
        _sync(copier, entry.path, target)
        copier.attributes(target, s, os.lstat(target))
    elif d is not None and _same(entry.path, target, s, d):
        copier.linked.setdefault((s.st_dev, s.st_ino), target)
        copier.attributes(target, s, d)
    else:
        if d is not None:
            _remove(target)
        copier.tree(entry.path, target)


def _restore(stage: Path, roots: list[Path]) -> None:
    """Each root gets its copy's contents back, as they are now."""
    copier = _Copier(strict=False)
    for i, root in enumerate(roots):
        copy = stage / str(i)
        if not os.path.lexists(copy):
            continue
        if root.is_dir() and not root.is_symlink():
            _sync(copier, str(copy), str(root))
        else:
            root.unlink(missing_ok=True)
            copier.tree(str(copy), str(root))


def _stage(roots: list[Path], size_bytes: int, inodes: int) -> tuple[Path, list[Path]]:
    """Mount the capped tmpfs and copy the roots in; returns it and the roots now bound from it."""
    stage = Path(tempfile.mkdtemp(prefix="lmrbench-ws-"))
    try:
        _mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size_bytes},nr_inodes={inodes},mode=0700")
    except OSError:
        stage.rmdir()
        raise
    bound: list[Path] = []
    try:
        copier = _Copier(strict=True)
        for i, root in enumerate(roots):
            copier.tree(str(root), str(stage / str(i)))
        for i, root in enumerate(roots):
            _mount(str(stage / str(i)), root, None, MS_BIND)
            bound.append(root)
    except OSError:
        _release(stage, bound, [])
        raise
    return stage, bound


def _release(stage: Path, bound: list[Path], roots: list[Path]) -> None:
    for root in bound:
        _detach(root)
    try:
        _restore(stage, roots)
    finally:
        _detach(stage)
        with contextlib.suppress(OSError):
            stage.rmdir()


@contextlib.contextmanager
def capped(roots: list[Path], size_bytes: int, inodes: int) -> Iterator[Path | None]:
    """Run the body with `roots` on one tmpfs of `size_bytes` and `inodes`; yields its mount point, or None when
    it cannot be had here (not root, mounts refused, or the roots already larger than the caps: the watchdog's
    walk then measures them)."""
    roots = [r for r in roots if r.is_dir() or r.is_file()]
    if os.geteuid() != 0 or not roots:
        yield None
        return
    try:
        stage, bound = _stage(roots, size_bytes, inodes)
    except OSError:
        yield None
        return
    try:
        yield stage
    finally:
        _release(stage, bound, roots)


def full(mount: Path) -> LimitHit | None:
    """'workspace' when the tmpfs has no byte left, 'inodes' when it has no inode left, else None."""
    try:
        st = os.statvfs(mount)
    except OSError:
        return None
    if st.f_ffree == 0:
        return "inodes"
    return "workspace" if st.f_bfree == 0 else None
