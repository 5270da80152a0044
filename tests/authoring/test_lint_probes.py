"""Lint of probe-form tests: a reference case that crashed is reported, a deliberate raise is not."""

from __future__ import annotations

from lmrbench.authoring.fixtures import build_fixtures
from lmrbench.authoring.lint import lint
from lmrbench.tasks.loader import load_tasks

CRASHING_CASE = '''

@case
def batched():
    # a probe bug: lists of different lengths cannot be stacked
    import torch
    return {"out": torch.stack([torch.zeros(2), torch.zeros(3)])}
'''


def _kinds(root):
    return [(p.kind, p.detail) for p in lint(load_tasks(root, strict=True)) if p.task == "toy"]


def test_a_crashed_reference_case_is_reported_and_a_deliberate_raise_is_not(probe_tasks):
    task = probe_tasks.task("toy")
    root = task.root.parent
    assert _kinds(root) == []
    probe = task.tests_dir / "probe_ops.py"
    probe.write_text(probe.read_text() + CRASHING_CASE)
    assert build_fixtures(load_tasks(root, strict=True).task("toy"), check=False).ok
    found = _kinds(root)
    assert [k for k, _ in found] == ["accidental-raise"]
    assert "'batched'" in found[0][1] and "RuntimeError" in found[0][1]
    # the same exception raised on purpose by the repository's code is a deliberate outcome
    helper = task.repo_dir / "calc" / "checks.py"
    helper.write_text("def refuse():\n    raise RuntimeError('not like this')\n")
    assert _kinds(root) == []


DICT_CASE = '''

@case(rtol=1e-12, outputs={{"parts": dict(rtol=1e-3)}})
def parts():
    return {{"parts": {{"a": add_scaled([1.0], [2.0], 3.0), "b": add_scaled([0.5], [1.0], 2.0)}}}}
'''


def test_a_tolerance_named_after_a_flattened_output_is_reported(probe_tasks):
    task = probe_tasks.task("toy")
    root = task.root.parent
    probe = task.tests_dir / "probe_ops.py"
    base = probe.read_text()
    probe.write_text(base + DICT_CASE.format())
    assert build_fixtures(load_tasks(root, strict=True).task("toy"), check=False).ok
    found = _kinds(root)
    assert [k for k, _ in found] == ["override-misses-flattened-output"] and "'parts*'" in found[0][1]
    probe.write_text(base + DICT_CASE.format().replace('{"parts": dict', '{"parts*": dict'))
    assert build_fixtures(load_tasks(root, strict=True).task("toy"), check=False).ok
    assert _kinds(root) == []
