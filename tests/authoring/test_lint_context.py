"""Lint: a repository module the targets use must be shown to a prompted model (`retrieval_context`)."""

from __future__ import annotations

import json
from pathlib import Path

from lmrbench.authoring.lint import lint
from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.source import mask

GOLDEN = '''"""Arithmetic helpers."""

{imports}


def add_scaled(a, b, k):
    """Return a + k * b, element-wise for lists."""
{body}


def describe(v):
    return fmt(v)
'''


def _write(root: Path, imports: str, body: str, context: list[str]) -> None:
    task = root / "toy"
    golden = GOLDEN.format(imports=imports, body=body)
    (task / "golden_files" / "ops_golden.py").write_text(golden)
    (task / "toy-repo" / "calc" / "ops.py").write_text(mask(golden, "add_scaled"))
    info = json.loads((task / "info.json").read_text())
    info["implementations"][0]["retrieval_context"] = context
    (task / "info.json").write_text(json.dumps(info))


def _problems(root: Path) -> list[str]:
    return [p.detail for p in lint(load_tasks(root, strict=True)) if p.kind == "context-misses-import"]


def _repo_with_helpers(toy_root: Path) -> Path:
    calc = toy_root / "toy" / "toy-repo" / "calc"
    (calc / "scaling.py").write_text("def scale(k, y):\n    return k * y\n")
    (calc / "pretty.py").write_text("def fmt(v):\n    return str(v)\n")
    return toy_root


def test_a_helper_module_the_target_calls_must_be_in_the_context(toy_root):
    root = _repo_with_helpers(toy_root)
    body = "    return [x + scale(k, y) for x, y in zip(a, b)]"
    imports = "from calc.scaling import scale\nfrom calc.pretty import fmt"
    _write(root, imports, body, ["main.py"])
    found = _problems(root)
    assert len(found) == 1 and "calc/scaling.py" in found[0] and "calc/ops.py" in found[0]
    _write(root, imports, body, ["main.py", "calc/scaling.py"])
    assert _problems(root) == []  # calc/pretty.py is used only by code the model is shown, not by the target


def test_imports_inside_a_target_and_relative_imports_count(toy_root):
    root = _repo_with_helpers(toy_root)
    inside = "    from calc import scaling\n    return [x + scaling.scale(k, y) for x, y in zip(a, b)]"
    _write(root, "from calc.pretty import fmt", inside, ["main.py"])
    assert [("calc/scaling.py" in d) for d in _problems(root)] == [True]
    relative = "    return [x + sc.scale(k, y) for x, y in zip(a, b)]"
    _write(root, "from . import scaling as sc\nfrom .pretty import fmt", relative, ["main.py"])
    assert [("calc/scaling.py" in d) for d in _problems(root)] == [True]
    # a third-party or standard module is not the repository's to show
    _write(root, "import math\nfrom calc.pretty import fmt", "    return [x + math.prod([k, y]) for x, y in zip(a, b)]",
           ["main.py"])
    assert _problems(root) == []
