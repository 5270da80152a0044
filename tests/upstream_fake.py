"""A tiny fake "release" for the upstream split's tests: a wheel built in a temp folder, and a recipe for it.

No network: the wheel is taken from a local folder (`lmrbench tasks fetch --find-links`). The package has two
targets in two files (a function and a method), a test file the fetch must delete, and a near-copy of one target
(`legacy.py`) that the recipe removes."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

FILES = {
    "lmrfake/__init__.py": '''"""A tiny fake release."""

from lmrfake.model import Smoother
from lmrfake.ops import running_mean, scaled_diff

__all__ = ["Smoother", "running_mean", "scaled_diff"]
''',
    "lmrfake/ops.py": '''"""Sequence operations."""


def running_mean(values, decay):
    """Exponential running mean: m_0 = v_0, m_t = decay * m_{t-1} + (1 - decay) * v_t."""
    out = []
    m = None
    for v in values:
        # the first value starts the mean
        m = v if m is None else decay * m + (1 - decay) * v
        out.append(m)
    return out


def scaled_diff(a, b, scale=2.0):
    """scale * (a - b), element by element."""
    return [scale * (x - y) for x, y in zip(a, b, strict=True)]
''',
    "lmrfake/model.py": '''"""A model built on the ops."""

from lmrfake.ops import running_mean, scaled_diff


class Smoother:
    """Smooths a sequence and reports the residual."""

    def __init__(self, decay=0.5, scale=2.0):
        self.decay = decay
        self.scale = scale

    def forward(self, values):
        """(smoothed values, scaled residual)."""
        smooth = running_mean(values, self.decay)
        return smooth, scaled_diff(values, smooth, self.scale)
''',
    "lmrfake/legacy.py": '''"""An older copy of the running mean."""


def ema(xs, beta):
    out = []
    m = None
    for v in xs:
        m = v if m is None else beta * m + (1 - beta) * v
        out.append(m)
    return out
''',
    "lmrfake/tests/test_ops.py": '''from lmrfake.ops import running_mean


def test_running_mean():
    assert running_mean([1.0, 3.0], 0.5) == [1.0, 2.0]
''',
}

PROBE = '''"""Probe of the fake release: public entry points (the model and the op)."""

from lmrfake import Smoother, running_mean
from lmrbench_probe import case


@case(params=[0.0, 0.5, 0.9])
def smoother(decay):
    smooth, residual = Smoother(decay=decay, scale=3.0).forward([1.0, 2.0, 4.0, 8.0, -1.0])
    return {"smooth": smooth, "residual": residual}


@case
def mean_alone():
    return {"mean": running_mean([2.0, 0.0, 1.0], 0.25)}
'''

WRONG = {
    "decay-swapped": {"why": "weights swapped", "edits": [
        {"file": "lmrfake/ops.py", "search": "decay * m + (1 - decay) * v", "replace": "(1 - decay) * m + decay * v"}]},
    "residual-sign": {"why": "residual the other way round", "edits": [
        {"file": "lmrfake/model.py", "search": "scaled_diff(values, smooth, self.scale)",
         "replace": "scaled_diff(smooth, values, self.scale)"}]},
}


def build_wheel(dist: Path, version: str = "0.1.0") -> Path:
    """Write lmrfake-<version>-py3-none-any.whl into `dist`."""
    dist.mkdir(parents=True, exist_ok=True)
    info = f"lmrfake-{version}.dist-info"
    path = dist / f"lmrfake-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for rel, text in FILES.items():
            zf.writestr(rel, text)
        zf.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: lmrfake\nVersion: {version}\n")
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: lmrbench-tests\nRoot-Is-Purelib: true\n"
                    "Tag: py3-none-any\n")
        zf.writestr(f"{info}/RECORD", "")
    return path


def build_dep_wheel(dist: Path) -> Path:
    """lmrfakedep 0.1.0: a requirement the harness lacks (a task environment must install it)."""
    dist.mkdir(parents=True, exist_ok=True)
    path = dist / "lmrfakedep-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("lmrfakedep/__init__.py", "SCALE = 3.0\n")
        zf.writestr("lmrfakedep-0.1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: lmrfakedep\nVersion: 0.1.0\n")
        zf.writestr("lmrfakedep-0.1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: lmrbench-tests\n"
                    "Root-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr("lmrfakedep-0.1.0.dist-info/RECORD", "")
    return path


PROBE_WITH_DEP = PROBE.replace("from lmrbench_probe import case",
                               "from lmrbench_probe import case\nfrom lmrfakedep import SCALE").replace("scale=3.0",
                                                                                                      "scale=SCALE")


def write_recipe(tasks: Path, wheel: Path, task_id: str = "fake-smoother", sha256: str | None = None,
                 wrong: dict | None = None, requirements: list[str] | None = None) -> Path:
    """A task folder for the fake wheel (no expected outputs yet: `lmrbench tasks fixtures` writes them)."""
    root = tasks / task_id
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "tests" / "probe_smoother.py").write_text(PROBE_WITH_DEP if requirements else PROBE)
    (root / "paper.md").write_text("# Smoothing\n\nAn exponential running mean and its scaled residual.\n")
    for name, variant in (WRONG if wrong is None else wrong).items():
        (root / "wrong" / "1").mkdir(parents=True, exist_ok=True)
        (root / "wrong" / "1" / f"{name}.json").write_text(json.dumps(variant))
    info = {
        "format": "lmrbench/1", "task_id": task_id, "split": "upstream", "paper_name": "Fake smoothing",
        "paper_url": "https://example.org/fake", "year": 2025, "publication_date": "2025-10-01",
        "timeout_s": 60, "requirements": requirements or [],
        "upstream": {"package": "lmrfake", "version": "0.1.0", "filename": wheel.name,
                     "sha256": sha256 or hashlib.sha256(wheel.read_bytes()).hexdigest(), "import_root": "lmrfake",
                     "tier": "feature", "first_released": {"version": "0.1.0", "date": "2025-10-02"},
                     "remove": ["lmrfake/legacy.py"]},
        "implementations": [{
            "index": 1, "instruction": "Implement the running mean and the smoother's forward pass (Section 2).",
            "category": "Training Objectives & Optimization Techniques", "goal_file": "lmrfake/ops.py",
            "goal_function": "running_mean",
            "targets": ["lmrfake/ops.py::running_mean", "lmrfake/model.py::Smoother.forward"],
            "retrieval_context": ["lmrfake/__init__.py"], "unit_test_file": "tests/probe_smoother.py"}],
    }
    (root / "info.json").write_text(json.dumps(info, indent=1))
    return root
