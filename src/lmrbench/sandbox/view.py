"""The sandbox's view of the filesystem as bubblewrap arguments: an allow-list, nothing else.

The root is an empty read-only tmpfs. On it: the system paths (read-only), the Python installation in use
(read-only) with the harness's own folders inside it masked by empty read-only tmpfs (`hidden_paths`: an
installed lmrbench package carries the built-in tasks' hidden files), a fresh /proc and /dev, private size-capped
tmpfs at /tmp and /dev/shm, the workspace (writable), and the caller's extra read-only and writable paths, each
at its own host path. Folders leading to a mounted path are created empty (mode 0755), so nothing beside that
path shows.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lmrbench.cachedir import cache_root
from lmrbench.sandbox.base import SandboxConfig

PACKAGE = Path(__file__).resolve().parents[1]  # the lmrbench package this harness runs from
SITE_DIRS = ("lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages",
             "local/lib/python3*/dist-packages")


def hidden_paths() -> list[Path]:
    """Harness folders that may sit inside the mounted Python installation and hold hidden material: the lmrbench
    package itself (a non-editable install carries `builtin_tasks/`: golden files, expected outputs, checks, wrong
    variants), every other installed copy of it with its metadata (whose RECORD lists each hidden file's size and
    hash), and the harness's cache. Each is covered by an empty read-only
    tmpfs in the view. Nothing run in the sandbox imports lmrbench (the runners are copied in, standalone)."""
    cache = cache_root()
    found = {PACKAGE, (PACKAGE / "builtin_tasks").resolve(), cache.resolve()}
    for root in [*python_roots(), Path("/usr")]:
        for pattern in SITE_DIRS:
            for name in ("lmrbench", "lmrbench-*.dist-info", "lmrbench-*.egg-info"):  # RECORD: names, sizes, hashes
                found.update(p.resolve() for p in root.glob(f"{pattern}/{name}"))
    return sorted(found)


def masks(mounted: list[Path]) -> list[Path]:
    """The hidden paths a view mounting `mounted` (read-only roots) would show: existing folders inside one of them,
    never one holding the Python installation itself."""
    roots = python_roots()
    shown = [p for p in hidden_paths() if p.is_dir() and any(p.is_relative_to(m) for m in mounted)
             and not any(r.is_relative_to(p) for r in roots)]
    return [p for p in shown if not any(p != q and p.is_relative_to(q) for q in shown)]  # outermost only


def python_roots() -> list[Path]:
    """Folders the sandboxed interpreter needs to see: the venv and the base installation."""
    roots = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    roots.add(Path(sys.executable).resolve().parent)
    return sorted(roots)


class _Builder:
    def __init__(self) -> None:
        self.args: list[str] = []
        self.mounted: list[Path] = []  # host folders bound into the view: everything inside them exists
        self.made: set[Path] = set()  # empty folders made in the view (tmpfs mounts, parents of mounts)

    def _covered(self, path: Path) -> bool:
        return any(path == m or path.is_relative_to(m) for m in self.mounted)

    def _parents(self, dest: Path) -> None:
        for parent in reversed(dest.parents):
            if parent == Path("/") or parent in self.made or self._covered(parent):
                continue
            self.args += ["--perms", "0755", "--dir", str(parent)]
            self.made.add(parent)

    def bind(self, kind: str, src: Path, dest: Path | None = None) -> None:
        dest = dest or src
        self._parents(dest)
        self.args += [kind, str(src), str(dest)]
        self.mounted.append(dest)

    def tmpfs(self, dest: Path, size_bytes: int) -> None:
        self._parents(dest)
        self.args += ["--perms", "1777", "--size", str(size_bytes), "--tmpfs", str(dest)]
        self.made.add(dest)

    def mask(self, dest: Path) -> None:
        """An empty tmpfs over `dest` (made read-only by `view_args` once every mount is in place)."""
        self.args += ["--perms", "0555", "--size", "4096", "--tmpfs", str(dest)]
        self.made.add(dest)

    def system(self, path: str) -> None:
        p = Path(path)
        if p.is_symlink():  # merged /usr: /bin -> usr/bin; keep it a link
            self._parents(p)
            self.args += ["--symlink", os.readlink(p), str(p)]
            self.made.add(p)
        elif p.exists():
            self.bind("--ro-bind", p)


def view_args(config: SandboxConfig, workspace: Path, readonly: list[Path], writable: list[Path]) -> list[str]:
    """bubblewrap mount arguments for the allow-list view (no namespace or user options)."""
    b = _Builder()
    for path in config.system_paths:
        b.system(path)
    b.args += ["--proc", "/proc", "--dev", "/dev"]
    if config.gpus:  # the NVIDIA device nodes, for --gpus runs
        for dev in sorted(Path("/dev").glob("nvidia*")):
            b.args += ["--dev-bind", str(dev), str(dev)]
    b.made |= {Path("/proc"), Path("/dev")}
    size = config.tmp_mb * 1024 * 1024
    b.tmpfs(Path("/tmp"), size)
    b.tmpfs(Path("/dev/shm"), size)
    for root in python_roots():
        if not b._covered(root):
            b.bind("--ro-bind", root)
    hidden = masks(b.mounted)
    for folder in hidden:  # before the workspace and extras: a path the caller names is shown even inside a mask
        b.mask(folder)
    b.bind("--bind", workspace)
    extras = [("--ro-bind", p) for p in readonly] + [("--bind", p) for p in writable]
    for kind, extra in sorted(extras, key=lambda e: len(e[1].parts)):
        b.bind(kind, extra)
    remounts = [arg for folder in hidden for arg in ("--remount-ro", str(folder))]
    _hide_upstream_cache(b, workspace)
    return [*b.args, "--remount-ro", "/", *remounts, "--chdir", str(workspace)]


def upstream_cache() -> Path:
    """The upstream split's cache (its golden trees are the references): `$LMRBENCH_CACHE/upstream`, the same
    default as tasks/upstream.py."""
    return cache_root() / "upstream"


def _hide_upstream_cache(b: _Builder, workspace: Path) -> None:
    """Nothing outside the allow-list shows, so the cache is invisible unless a mounted folder holds it (a cache
    put inside the Python installation, say): then an empty read-only tmpfs covers it."""
    hidden = upstream_cache().resolve()
    if hidden.is_dir() and b._covered(hidden) and not workspace.resolve().is_relative_to(hidden):
        b.args += ["--perms", "0755", "--size", "4096", "--tmpfs", str(hidden), "--remount-ro", str(hidden)]
