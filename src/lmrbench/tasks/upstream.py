"""The upstream split's cache: download a pinned release, check its hash, unpack it, mask the targets.

A recipe (`info.json` with an `upstream` block) names a package version and the sha256 of one file of it. The
fetch downloads that file with pip, verifies the hash and unpacks the package's import root twice:

    <cache>/upstream/<package>-<version>-<sha12>/
        dist/<filename>          the file as downloaded
        golden/<import_root>/    the release, unmasked: the reference code (never shown to a solver)
        masked/<task_id>/<import_root>/   the task's repository: targets masked, tests and `remove`d files gone
        masked/<task_id>.json    what the masked tree was built from (a recipe change rebuilds it)

Everything is idempotent: a file already there with the right hash, a golden tree already unpacked and a masked
tree built from the same recipe are reused. A hash mismatch, a target that cannot be found or masked, or a
`remove` entry that names no file is an UpstreamError naming the task and what differed.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, Field

from lmrbench.cachedir import cache_root
from lmrbench.tasks.schema import Task, UpstreamInfo
from lmrbench.tasks.source import SourceError, find_node, mask

MASK_VERSION = "mask-v1"
"""Part of every masked tree's key: bump it when the masking rules change."""
TEST_DIRS = frozenset({"tests", "test"})


class UpstreamError(ValueError):
    """A recipe that cannot be fetched or masked: the message names the task and what differed."""


def default_cache_dir() -> Path:
    """`$LMRBENCH_CACHE`, else `~/.cache/lmrbench`."""
    return cache_root()


class FetchConfig(BaseModel):
    """Where upstream releases come from and where they go."""

    cache_dir: Path = Field(default_factory=default_cache_dir, description="Releases go under <cache>/upstream.")
    find_links: Path | None = Field(
        default_factory=lambda: Path(p) if (p := os.environ.get("LMRBENCH_FIND_LINKS")) else None,
        description="A local folder of distribution files: pip takes the file from there and contacts no index "
        "(tests; offline mirrors). Default $LMRBENCH_FIND_LINKS.")
    timeout_s: int = Field(default=900, ge=10, description="Limit of one pip download.")


def package_dir(up: UpstreamInfo, cache_dir: Path | None = None) -> Path:
    """The release's folder in the cache."""
    return (cache_dir or default_cache_dir()) / "upstream" / f"{up.package}-{up.version}-{up.sha256[:12]}"


def golden_root(up: UpstreamInfo, cache_dir: Path | None = None) -> Path:
    """The unmasked release: the import root sits at its top."""
    return package_dir(up, cache_dir) / "golden"


def masked_root(up: UpstreamInfo, task_id: str, cache_dir: Path | None = None) -> Path:
    """The task's masked repository (the solver's workspace)."""
    return package_dir(up, cache_dir) / "masked" / task_id


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --- download ------------------------------------------------------------------------------------------------


def _pip_command(up: UpstreamInfo, dest: Path, cfg: FetchConfig) -> list[str]:
    binary = ["--only-binary=:all:"] if up.is_wheel else ["--no-binary=:all:", "--no-build-isolation"]
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--quiet",
           *binary, "--dest", str(dest), f"{up.package}=={up.version}"]
    if cfg.find_links is not None:
        cmd += ["--no-index", "--find-links", str(cfg.find_links)]
    return cmd


def _download(task_id: str, up: UpstreamInfo, dist: Path, cfg: FetchConfig) -> None:
    dist.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dl-", dir=dist.parent) as tmp:
        try:
            proc = subprocess.run(_pip_command(up, Path(tmp), cfg), capture_output=True, text=True,
                                  errors="replace", timeout=cfg.timeout_s)
        except subprocess.TimeoutExpired as exc:
            raise UpstreamError(f"{task_id}: pip download of {up.package}=={up.version} took over "
                                f"{cfg.timeout_s} s") from exc
        got = Path(tmp) / up.filename
        if proc.returncode != 0 or not got.is_file():
            files = sorted(p.name for p in Path(tmp).iterdir())
            why = (proc.stderr.strip().splitlines() or ["no message"])[-1][:400]
            raise UpstreamError(f"{task_id}: pip download of {up.package}=={up.version} did not give "
                                f"{up.filename} (got {files or 'nothing'}; pip: {why})")
        shutil.move(str(got), dist)


def fetch_file(task_id: str, up: UpstreamInfo, cfg: FetchConfig) -> Path:
    """The pinned file in the cache, downloaded when missing; its sha256 must equal the recipe's."""
    dist = package_dir(up, cfg.cache_dir) / "dist" / up.filename
    if not dist.is_file():
        _download(task_id, up, dist, cfg)
    got = sha256_of(dist)
    if got != up.sha256:
        bad = dist.with_name(dist.name + ".mismatch")
        dist.replace(bad)
        raise UpstreamError(f"{task_id}: sha256 of {up.filename} is {got}, the recipe says {up.sha256} "
                            f"(the file is kept as {bad})")
    return dist


# --- unpack --------------------------------------------------------------------------------------------------


def _member_rel(name: str, import_root: str) -> str | None:
    """The path of an archive member relative to the folder holding the import root, or None when outside it.

    Wheels hold `<root>/...`; sdists `<pkg-ver>/<root>/...` or `<pkg-ver>/src/<root>/...`."""
    parts = PurePosixPath(name).parts
    if ".." in parts or name.startswith("/"):
        return None
    for skip in (0, 1, 2):
        if len(parts) > skip + 1 and parts[skip] == import_root and (skip < 2 or parts[1] == "src"):
            return str(PurePosixPath(*parts[skip:]))
    return None


def _unpack_wheel(archive: Path, dest: Path, import_root: str) -> int:
    count = 0
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            rel = _member_rel(info.filename, import_root)
            if rel is None or info.is_dir():
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(info))
            count += 1
    return count


def _unpack_sdist(archive: Path, dest: Path, import_root: str) -> int:
    count = 0
    with tarfile.open(archive) as tf:
        members = [m for m in tf.getmembers() if m.isfile() and _member_rel(m.name, import_root)]
        depth = min((len(PurePosixPath(m.name).parts) for m in members), default=0)
        for m in members:
            rel = _member_rel(m.name, import_root)
            fh = tf.extractfile(m)
            if rel is None or fh is None or len(PurePosixPath(m.name).parts) - depth > 64:
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(fh.read())
            count += 1
    return count


def _install_tree(tmp: Path, dest: Path) -> None:
    """Put a finished tree in place. Another process building the same tree at the same time may win the rename;
    its tree is the same, so that is not an error."""
    if dest.exists():
        shutil.rmtree(dest, ignore_errors=True)
    try:
        tmp.rename(dest)
    except OSError:
        if not dest.is_dir():
            raise


def unpack(task_id: str, up: UpstreamInfo, dist: Path, cfg: FetchConfig) -> Path:
    """The golden tree (the import root only), unpacked once."""
    golden = golden_root(up, cfg.cache_dir)
    done = golden.parent / "golden.done"
    if done.is_file() and golden.is_dir():
        return golden
    tmp = Path(tempfile.mkdtemp(prefix="golden-", dir=golden.parent))
    try:
        if up.is_wheel:
            count = _unpack_wheel(dist, tmp, up.import_root)
        else:
            count = _unpack_sdist(dist, tmp, up.import_root)
        if count == 0 or not (tmp / up.import_root).is_dir():
            raise UpstreamError(f"{task_id}: {up.filename} has no folder '{up.import_root}' (import_root)")
        _install_tree(tmp, golden)
        done.write_text(up.sha256 + "\n", encoding="utf-8")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return golden


# --- mask ----------------------------------------------------------------------------------------------------


def task_target_map(task: Task) -> dict[str, list[str]]:
    """Every goal file of every implementation and its targets (all are masked in the task's one repository)."""
    out: dict[str, list[str]] = {}
    for impl in task.implementations:
        for rel, names in impl.target_map().items():
            out.setdefault(rel, [])
            out[rel] += [n for n in names if n not in out[rel]]
    return {rel: names for rel, names in out.items() if names}


def recipe_key(task: Task) -> str:
    """What the masked tree depends on: the file, the import root, the targets, the removals, the rules."""
    assert task.upstream is not None
    up = task.upstream
    data = [MASK_VERSION, up.sha256, up.import_root, sorted(up.remove),
            sorted((f, sorted(n)) for f, n in task_target_map(task).items())]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()


def is_test_file(rel: PurePosixPath) -> bool:
    """The release's own tests: test folders, `test_*.py`, `*_test.py`, `conftest.py`."""
    name = rel.name
    in_tests = any(p in TEST_DIRS for p in rel.parts[:-1])
    return in_tests or name == "conftest.py" or (name.endswith(".py") and (name.startswith("test_")
                                                                          or name.endswith("_test.py")))


def _drop_tests(tree: Path) -> list[str]:
    gone = []
    for path in sorted(tree.rglob("*"), reverse=True):  # children first: test folders go once empty
        rel = PurePosixPath(path.relative_to(tree).as_posix())
        if path.is_file() and is_test_file(rel):
            gone.append(rel.as_posix())
            path.unlink()
        elif path.is_dir() and path.name in TEST_DIRS and not any(path.iterdir()):
            path.rmdir()
        elif path.is_dir() and path.name == "__pycache__":
            shutil.rmtree(path)
    return sorted(gone)


def _mask_file(task_id: str, tree: Path, rel: str, names: list[str]) -> None:
    path = tree / rel
    if not path.is_file():
        raise UpstreamError(f"{task_id}: target file '{rel}' is not in the release")
    text = path.read_bytes().decode("utf-8")
    for name in names:
        try:
            text = mask(text, name)
        except SourceError as exc:
            raise UpstreamError(f"{task_id}: cannot mask '{rel}::{name}': {exc}") from exc
    path.write_bytes(text.encode("utf-8"))


def build_masked(task: Task, golden: Path, cfg: FetchConfig) -> Path:
    """The task's masked repository, rebuilt when its recipe key changed."""
    assert task.upstream is not None
    dest = masked_root(task.upstream, task.task_id, cfg.cache_dir)
    stamp = dest.with_name(f"{task.task_id}.json")
    key = recipe_key(task)
    if dest.is_dir() and stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")).get("key") == key:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{task.task_id}-", dir=dest.parent))
    try:
        shutil.copytree(golden, tmp, dirs_exist_ok=True)
        for rel in task.upstream.remove:
            if not (tmp / rel).is_file():
                raise UpstreamError(f"{task.task_id}: remove: '{rel}' is not a file of the release")
            (tmp / rel).unlink()
        tests = _drop_tests(tmp)
        for rel, names in task_target_map(task).items():
            _mask_file(task.task_id, tmp, rel, names)
        _install_tree(tmp, dest)
        stamp.write_text(json.dumps({"key": key, "removed_tests": tests}, indent=1), encoding="utf-8")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def ensure_task(task: Task, cfg: FetchConfig | None = None) -> Path:
    """Fetch, verify, unpack and mask one upstream task; returns its masked repository."""
    cfg = cfg or FetchConfig()
    if task.upstream is None:
        raise UpstreamError(f"{task.task_id}: not an upstream task")
    up = task.upstream
    package_dir(up, cfg.cache_dir).mkdir(parents=True, exist_ok=True)
    dist = fetch_file(task.task_id, up, cfg)
    golden = unpack(task.task_id, up, dist, cfg)
    return build_masked(task, golden, cfg)


# --- sizes ---------------------------------------------------------------------------------------------------


def _body_code_lines(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if not body:
        return 0
    doc_lines: set[int] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and sub is not node and sub.body:
            first = sub.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                doc_lines |= set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    span = range(body[0].lineno, (node.end_lineno or body[0].lineno) + 1)
    return sum(1 for n in span if n not in doc_lines and lines[n - 1].strip()
               and not lines[n - 1].strip().startswith("#"))


def code_lines(source: str, qualname: str) -> int:
    """Non-blank, non-comment, non-docstring lines that masking removes from one target."""
    tree = ast.parse(source)
    node = find_node(tree, qualname)
    if node is None:
        raise SourceError(f"no definition named '{qualname}'")
    lines = source.splitlines()
    if isinstance(node, ast.ClassDef):
        return sum(_body_code_lines(lines, m) for m in node.body if isinstance(m, ast.FunctionDef
                                                                                 | ast.AsyncFunctionDef))
    return _body_code_lines(lines, node)


def masked_code_lines(task: Task, golden: Path) -> int:
    """Masked code lines of the whole task (every target of every implementation, counted once)."""
    total = 0
    for rel, names in task_target_map(task).items():
        source = (golden / rel).read_text(encoding="utf-8")
        total += sum(code_lines(source, n) for n in names)
    return total


# --- wrong variants: declared edits ----------------------------------------------------------------------------


class Edit(BaseModel):
    """One search-and-replace in an unmasked upstream file."""

    file: str = Field(min_length=1, description="Relative to the repository root (starts with the import root).")
    search: str = Field(min_length=1, description="Exact text that occurs exactly once in that file.")
    replace: str = Field(description="The wrong text put in its place.")


class WrongVariant(BaseModel):
    """`wrong/<index>/<name>.json`: a plausible mistake, as small edits of the golden (never a copy of it)."""

    why: str = Field(min_length=1, description="What plausible mistake this is.")
    edits: list[Edit] = Field(min_length=1, description="Applied in order.")


def apply_edits(variant: WrongVariant, golden: Path, where: str) -> dict[str, str]:
    """The edited files' texts (relative path -> text); a search that does not occur exactly once is an error."""
    files: dict[str, str] = {}
    for n, edit in enumerate(variant.edits):
        if edit.file not in files:
            path = golden / edit.file
            if not path.is_file():
                raise UpstreamError(f"{where}: edits.{n}: '{edit.file}' is not a file of the release")
            files[edit.file] = path.read_text(encoding="utf-8")
        count = files[edit.file].count(edit.search)
        if count != 1:
            raise UpstreamError(f"{where}: edits.{n}: the search text occurs {count} times in {edit.file} "
                                f"(exactly once wanted): {edit.search[:120]!r}")
        files[edit.file] = files[edit.file].replace(edit.search, edit.replace)
    return files


def load_variant(path: Path) -> WrongVariant:
    """Read one declared wrong variant; a malformed file is an UpstreamError naming it."""
    try:
        return WrongVariant.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise UpstreamError(f"{path}: not a wrong variant ({str(exc).splitlines()[0][:300]})") from exc
