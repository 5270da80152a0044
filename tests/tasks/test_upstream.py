"""The upstream split's recipe schema, cache pieces and the committed recipes (static lint: no download)."""

from __future__ import annotations

import ast
import json
import tarfile
from pathlib import Path

import pytest

from lmrbench.authoring.lint_upstream import near_copies, recipe_checks
from lmrbench.tasks.loader import in_split, load_tasks
from lmrbench.tasks.schema import TaskFormatError
from lmrbench.tasks.source import mask
from lmrbench.tasks.upstream import (
    Edit,
    FetchConfig,
    UpstreamError,
    WrongVariant,
    _member_rel,
    apply_edits,
    code_lines,
    ensure_task,
    is_test_file,
    masked_root,
)
from tests.upstream_fake import build_wheel, write_recipe

BUILTIN_UPSTREAM = [t for t in load_tasks().tasks if t.upstream is not None]


def _info(tmp_path: Path) -> tuple[Path, dict]:
    root = write_recipe(tmp_path / "tasks", build_wheel(tmp_path / "dist"))
    return root, json.loads((root / "info.json").read_text())


@pytest.mark.parametrize(("change", "message"), [
    (lambda i: i.pop("upstream"), "needs an 'upstream' block"),
    (lambda i: i["implementations"][0].update(golden_file="g.py"), "has no golden_file"),
    (lambda i: i["implementations"][0].update(targets=["running_mean"]), "'<file>::<name>' entries"),
    (lambda i: i.update(repo_folder_name="repo"), "has no repo_folder_name"),
    (lambda i: i["upstream"].update(tier="huge"), "'feature' or 'system'"),
    (lambda i: i["upstream"].update(sha256="abc"), "upstream.sha256"),
])
def test_malformed_recipes_name_the_field(tmp_path, change, message):
    root, info = _info(tmp_path)
    change(info)
    (root / "info.json").write_text(json.dumps(info))
    with pytest.raises(TaskFormatError, match="info.json") as exc:
        load_tasks(root.parent, strict=True)
    assert message in str(exc.value)


def test_a_recipe_loads_without_fetching(tmp_path, monkeypatch):
    monkeypatch.setenv("LMRBENCH_CACHE", str(tmp_path / "cache"))
    root, _ = _info(tmp_path)
    task = load_tasks(root.parent, strict=True).tasks[0]
    impl = task.implementations[0]
    assert impl.target_map() == {"lmrfake/ops.py": ["running_mean"], "lmrfake/model.py": ["Smoother.forward"]}
    assert impl.targets == ["running_mean"] and impl.golden_dir is not None
    assert task.repo_dir == masked_root(task.upstream, "fake-smoother") and not task.repo_dir.exists()
    assert in_split(task, "upstream") and in_split(task, "every") and not in_split(task, "all")
    assert not (tmp_path / "cache").exists()  # loading never downloads


def test_masking_is_rebuilt_when_the_recipe_changes(tmp_path):
    root, info = _info(tmp_path)
    cfg = FetchConfig(cache_dir=tmp_path / "cache", find_links=tmp_path / "dist")
    repo = ensure_task(load_tasks(root.parent).tasks[0], cfg)
    assert "raise NotImplementedError" not in (repo / "lmrfake" / "model.py").read_text().split("def forward")[0]
    info["implementations"][0]["targets"] = ["lmrfake/ops.py::running_mean"]
    (root / "info.json").write_text(json.dumps(info))
    repo = ensure_task(load_tasks(root.parent).tasks[0], cfg)
    assert "running_mean(values, self.decay)" in (repo / "lmrfake" / "model.py").read_text()  # unmasked again
    info["implementations"][0]["targets"] = ["lmrfake/ops.py::no_such_function"]
    (root / "info.json").write_text(json.dumps(info))
    with pytest.raises(UpstreamError, match="fake-smoother: cannot mask 'lmrfake/ops.py::no_such_function'"):
        ensure_task(load_tasks(root.parent).tasks[0], cfg)


def test_a_missing_remove_entry_is_an_error(tmp_path):
    root, info = _info(tmp_path)
    info["upstream"]["remove"] = ["lmrfake/not_there.py"]
    (root / "info.json").write_text(json.dumps(info))
    cfg = FetchConfig(cache_dir=tmp_path / "cache", find_links=tmp_path / "dist")
    with pytest.raises(UpstreamError, match="remove: 'lmrfake/not_there.py' is not a file of the release"):
        ensure_task(load_tasks(root.parent).tasks[0], cfg)


def test_sdist_members_are_found_beside_or_under_src():
    assert _member_rel("pkg-1.0/pkg/a.py", "pkg") == "pkg/a.py"
    assert _member_rel("pkg-1.0/src/pkg/sub/b.py", "pkg") == "pkg/sub/b.py"
    assert _member_rel("pkg/a.py", "pkg") == "pkg/a.py"  # a wheel
    assert _member_rel("pkg-1.0/docs/pkg/a.py", "pkg") is None
    assert _member_rel("pkg-1.0/../pkg/a.py", "pkg") is None
    assert _member_rel("pkg-1.0.dist-info/METADATA", "pkg") is None


def test_sdists_unpack(tmp_path):
    src = tmp_path / "src"
    for rel, text in {"lmrfake-0.1.0/src/lmrfake/__init__.py": "", "lmrfake-0.1.0/setup.py": "x = 1\n"}.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    with tarfile.open(tmp_path / "lmrfake-0.1.0.tar.gz", "w:gz") as tf:
        tf.add(src / "lmrfake-0.1.0", arcname="lmrfake-0.1.0")
    from lmrbench.tasks.upstream import _unpack_sdist
    assert _unpack_sdist(tmp_path / "lmrfake-0.1.0.tar.gz", tmp_path / "out", "lmrfake") == 1
    assert (tmp_path / "out" / "lmrfake" / "__init__.py").is_file()


def test_test_files():
    assert is_test_file(Path("pkg/tests/helpers.py")) and is_test_file(Path("pkg/test_x.py"))
    assert is_test_file(Path("pkg/x_test.py")) and is_test_file(Path("pkg/conftest.py"))
    assert not is_test_file(Path("pkg/testing.py")) and not is_test_file(Path("pkg/latest.py"))


def test_code_lines_count_only_code():
    src = '''
class C:
    """Doc."""

    def f(self, x):
        """Doc
        on two lines."""
        # a comment

        y = x + 1  # trailing comment counts as code

        def inner():
            """Inner doc."""
            return (y,
                    y)
        return inner

    def g(self):
        return 1
'''
    assert code_lines(src, "C.f") == 5  # y =, def inner, return (y, / y), return inner
    assert code_lines(src, "C") == 6
    masked = mask(src, "C")
    assert ast.parse(masked) and "return 1" not in masked


def test_edits_apply_exactly_once(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1 + 1\ny = 2\n")
    edited = apply_edits(WrongVariant(why="w", edits=[Edit(file="pkg/a.py", search="y = 2", replace="y = 3")]),
                         tmp_path, "v.json")
    assert edited == {"pkg/a.py": "x = 1 + 1\ny = 3\n"}
    with pytest.raises(UpstreamError, match="occurs 2 times in pkg/a.py"):
        apply_edits(WrongVariant(why="w", edits=[Edit(file="pkg/a.py", search="1", replace="2")]), tmp_path, "v")
    with pytest.raises(UpstreamError, match="'pkg/b.py' is not a file of the release"):
        apply_edits(WrongVariant(why="w", edits=[Edit(file="pkg/b.py", search="1", replace="2")]), tmp_path, "v")


def test_near_copies_with_renamed_locals_are_found(tmp_path):
    root, info = _info(tmp_path)
    info["upstream"]["remove"] = []
    (root / "info.json").write_text(json.dumps(info))
    cfg = FetchConfig(cache_dir=tmp_path / "cache", find_links=tmp_path / "dist")
    task = load_tasks(root.parent).tasks[0]
    task = task.model_copy(update={"repo_dir": ensure_task(task, cfg)})
    found = near_copies(task, cfg.cache_dir / "upstream" / next(iter(
        p.name for p in (cfg.cache_dir / "upstream").iterdir())) / "golden")
    assert [p.kind for p in found] == ["body-near-elsewhere"]
    assert "lmrfake/legacy.py:4 (ema) holds 100% of the body of lmrfake/ops.py::running_mean" in found[0].detail


def test_recipe_checks_want_ten_wrong_variants_notes_and_outputs(tmp_path, monkeypatch):
    monkeypatch.setenv("LMRBENCH_CACHE", str(tmp_path / "cache"))  # not fetched
    root, _ = _info(tmp_path)
    task = load_tasks(root.parent).tasks[0]
    kinds = sorted(p.kind for p in recipe_checks(task))
    assert kinds == ["few-wrong-variants", "no-expected-outputs", "no-notes"]


@pytest.mark.parametrize("task", BUILTIN_UPSTREAM, ids=lambda t: t.task_id)
def test_committed_recipes_load_and_lint(task):
    # static: no download (the fetched release's checks run in `make validate`)
    assert [p.line() for p in recipe_checks(task) if p.severity == "error"] == []
