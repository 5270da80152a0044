"""The repository holds no upstream code: no committed file equals or nearly equals a file of any release an
upstream recipe pins (authoring/overlap.py: shared normalised-line shingles). The releases come from the cache
(`lmrbench tasks fetch`; fetched here when missing, from PyPI), so the check is cheap once they are cached."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lmrbench.authoring.overlap import Index, near_copies
from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.upstream import FetchConfig, ensure_task, golden_root
from tests.upstream_fake import FILES, build_wheel, write_recipe

REPO = Path(__file__).resolve().parents[1]
RELEASES = {}
for _task in load_tasks().tasks:
    if _task.upstream is not None:
        RELEASES.setdefault((_task.upstream.package, _task.upstream.version, _task.upstream.sha256), _task)


@pytest.fixture(scope="module")
def committed() -> dict[str, Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    paths = {name: REPO / name for name in listed.decode().split("\0") if name}
    return {name: path for name, path in paths.items() if path.is_file() and not path.is_symlink()}


@pytest.mark.proof  # it fetches each pinned release (make validate; make test never downloads)
@pytest.mark.parametrize("key", sorted(RELEASES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_no_committed_file_copies_a_pinned_release(key, committed):
    task = RELEASES[key]
    assert task.upstream is not None
    ensure_task(task)
    index = Index()
    index.add_tree(golden_root(task.upstream), f"{task.upstream.package}-{task.upstream.version}")
    assert index.sizes, "the release has no text file to compare with"
    assert near_copies(committed, index) == []


def test_the_detector_finds_copies_and_leaves_our_code_alone(tmp_path, committed):
    wheel = build_wheel(tmp_path / "dist")
    task = load_tasks(write_recipe(tmp_path / "tasks", wheel)).tasks[0]
    cfg = FetchConfig(cache_dir=tmp_path / "cache", find_links=tmp_path / "dist")
    ensure_task(task, cfg)
    index = Index()
    index.add_tree(golden_root(task.upstream, cfg.cache_dir), "lmrfake")
    # a copy with its layout changed and a comment added, and a copy of half of the file, are found ...
    ops = FILES["lmrfake/ops.py"]
    relaid = "\n".join("  " + line.replace(", ", ",  ") + "  # ours" for line in ops.splitlines())
    (tmp_path / "relaid.py").write_text(relaid)
    half = ops[: len(ops) // 2 + 80] + "\n\ndef ours():\n    return 'something else entirely'\n"
    (tmp_path / "half.py").write_text(half)
    found = near_copies({"relaid.py": tmp_path / "relaid.py", "half.py": tmp_path / "half.py"}, index)
    assert {(m.ours, m.theirs) for m in found} == {("relaid.py", "lmrfake/lmrfake/ops.py"),
                                                   ("half.py", "lmrfake/lmrfake/ops.py")}
    # ... while the repository's own files match nothing of it, except the fake release's text in the test
    # helper (ours, and written to match: the detector must find it)
    ours = near_copies(committed, index)
    assert {m.ours for m in ours} == {"tests/upstream_fake.py"}, ours
