"""Loader for the original LMR-Bench layout (`datasets.zip`), absorbing the quirks of the published copy.

Every quirk is recorded as a Problem (task, implementation, kind, detail) and loading goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmrbench.tasks.categories import normalise_category
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import Implementation, Layout, Task

FALLBACK_TEST = "unit_test/unit_test.py"
TEST_DIR = "unit_test"


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _find_paper(root: Path, repo: Path, task_id: str, problems: list[Problem]) -> tuple[Path | None, Path | None]:
    def first(name: str) -> Path | None:
        for base in (repo, root):
            if (base / name).is_file():
                return base / name
        return None

    pdf, js = first("paper.pdf"), first("paper.json")
    if pdf is not None and pdf.stat().st_size == 0:
        problems.append(Problem(task_id, None, "empty-paper", f"{pdf} is 0 bytes"))
        pdf = None
    if js is not None and js.stat().st_size == 0:
        problems.append(Problem(task_id, None, "empty-paper", f"{js} is 0 bytes"))
        js = None
    if pdf is None and js is None:
        problems.append(Problem(task_id, None, "missing-paper", "no usable paper.pdf or paper.json"))
    elif js is None:
        problems.append(Problem(task_id, None, "paper-pdf-only", "only paper.pdf; text must be extracted", "warning"))
    return js, pdf


def _targets(raw: dict, task_id: str, index: int, problems: list[Problem]) -> list[str]:
    func, cls = _text(raw.get("goal_function")), _text(raw.get("class_name"))
    if "goal_function" not in raw or not func:
        problems.append(
            Problem(task_id, index, "schema-drift", "goal_function missing; the whole goal file is the target")
        )
        return []
    return [f"{cls}.{func}" if cls else func]


def _test_candidates(repo: Path, index: int) -> list[str]:
    """Where the test really is when unit_test_file names nothing: unit_test_<index>.py, unit_test.py, or the only
    unit_test*.py of the folder."""
    named = [f"{TEST_DIR}/unit_test_{index}.py", FALLBACK_TEST]
    found = [c for c in named if (repo / c).is_file()]
    if found:
        return found[:1]
    folder = repo / TEST_DIR
    others = sorted(p.name for p in folder.glob("unit_test*.py")) if folder.is_dir() else []
    return [f"{TEST_DIR}/{others[0]}"] if len(others) == 1 else []


def _unit_test(raw: dict, repo: Path, task_id: str, index: int, problems: list[Problem]) -> str:
    test = _text(raw.get("unit_test_file"))
    if not repo.is_dir() or (test and (repo / test).is_file()):
        return test
    found = _test_candidates(repo, index)
    if found:
        problems.append(Problem(task_id, index, "missing-unit-test-file", f"'{test}' does not exist; using '{found[0]}'"))
        return found[0]
    problems.append(Problem(task_id, index, "missing-unit-test-file", f"'{test}' does not exist and no fallback"))
    return test


def _implementation(raw: Any, n: int, root: Path, repo: Path, task_id: str, problems: list[Problem]) -> Implementation:
    if not isinstance(raw, dict):
        raise ValueError(f"implementations[{n}] is not an object")
    index = raw.get("index", n + 1)
    if not isinstance(index, int):
        problems.append(Problem(task_id, n + 1, "schema-drift", f"index {index!r} is not an int; using {n + 1}"))
        index = n + 1
    raw_cat = _text(raw.get("category"))
    category = normalise_category(raw_cat)
    if category is None:
        kind = "missing-category" if not raw_cat else "unknown-category"
        problems.append(Problem(task_id, index, kind, f"category {raw_cat!r} maps to none of the nine"))
    if "retrieval_context" not in raw and "retrieval_content" in raw:
        problems.append(Problem(task_id, index, "schema-drift", "'retrieval_content' used for 'retrieval_context'",
                                "warning"))
    ctx = raw.get("retrieval_context", raw.get("retrieval_content")) or []
    goal = _text(raw.get("goal_file"))
    test = _unit_test(raw, repo, task_id, index, problems)
    if goal and Path(goal).name == Path(test).name and Path(goal).parent == Path(test).parent:
        problems.append(Problem(task_id, index, "goal-is-test-file", f"goal_file '{goal}' is the unit-test file"))
    golden = _text(raw.get("golden_file"))
    golden_path = root / golden if golden else None
    if golden_path is None or not golden_path.is_file():
        problems.append(Problem(task_id, index, "missing-golden-file", f"'{golden}' does not exist"))
        golden_path = None
    return Implementation(
        task_id=task_id,
        index=index,
        instruction=_text(raw.get("instruction")),
        category=category,
        raw_category=raw_cat,
        goal_file=goal,
        targets=_targets(raw, task_id, index, problems),
        golden_file=golden_path,
        retrieval_context=[c for c in ctx if isinstance(c, str)] if isinstance(ctx, list) else [],
        unit_test_file=test,
    )


def _check_header(data: dict, root: Path, task_id: str, problems: list[Problem]) -> None:
    folder = data.get("folder_name")
    if not folder:
        problems.append(Problem(task_id, None, "schema-drift", "folder_name missing", "warning"))
    elif folder != root.name:
        problems.append(Problem(task_id, None, "schema-drift", f"folder_name '{folder}' != '{root.name}'", "warning"))
    iid = data.get("instance_id")
    if not isinstance(iid, int):
        problems.append(Problem(task_id, None, "schema-drift", f"instance_id {iid!r} is not an int", "warning"))


def _repo_defect(repo: Path, repo_name: str) -> tuple[str, str]:
    """(problem kind, detail) when the repository cannot be used, else ('', '')."""
    if not repo_name or not repo.exists():
        return "missing-repo", f"repository folder '{repo_name}' does not exist"
    if repo.is_file():
        size = repo.stat().st_size
        what = "an empty file" if size == 0 else f"a {size}-byte file"
        return "empty-repo", f"repository '{repo_name}' is {what}, not a folder (an unfetched submodule link?)"
    if not any(repo.iterdir()):
        return "empty-repo", f"repository folder '{repo_name}' is empty (an unfetched submodule?)"
    return "", ""


def load_original_task(root: Path, data: dict, problems: list[Problem]) -> Task | None:
    """Load one original-layout task folder; None only when info.json lists no implementations.

    A task whose repository is missing or empty still loads, with `defect` set: each of its implementations is
    then an `error` with that cause, never silently absent.
    """
    task_id = root.name.lower()
    _check_header(data, root, task_id, problems)
    repo_name = _text(data.get("repo_folder_name"))
    repo = root / repo_name if repo_name else root / "__missing__"
    kind, defect = _repo_defect(repo, repo_name)
    if kind:
        problems.append(Problem(task_id, None, kind, defect))
    paper_json, paper_pdf = _find_paper(root, repo, task_id, problems)
    impls: list[Implementation] = []
    raw_impls = data.get("implementations")
    if not isinstance(raw_impls, list) or not raw_impls:
        problems.append(Problem(task_id, None, "schema-drift", "no 'implementations' list"))
        return None
    for n, raw in enumerate(raw_impls):
        try:
            impls.append(_implementation(raw, n, root, repo, task_id, problems))
        except ValueError as exc:
            problems.append(Problem(task_id, n + 1, "schema-drift", str(exc)))
    year = data.get("year")
    return Task(
        task_id=task_id,
        layout=Layout.ORIGINAL,
        root=root,
        repo_dir=repo,
        paper_name=_text(data.get("paper_name")),
        paper_url=_text(data.get("paper_url")),
        year=year if isinstance(year, int) else None,
        paper_json=paper_json,
        paper_pdf=paper_pdf,
        timeout_s=600,
        implementations=impls,
        defect=defect,
    )
