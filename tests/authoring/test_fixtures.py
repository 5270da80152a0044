"""`tasks fixtures --check`: stored expected outputs may differ from a fresh run by float rounding, never in spec."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from lmrbench.authoring.fixtures import build_fixtures, spec_changes
from lmrbench.evaluate.probes import parse_probe_output
from lmrbench.sandbox import SandboxConfig
from lmrbench.sandbox.numerics import kernels_env
from lmrbench.tasks.loader import load_tasks
from tests.cli_inprocess import run_cli
from tests.conftest import write_task


def _run(**cases: dict) -> bytes:
    value = {"t": "float", "v": "1.0"}
    rows = [{"case": name, "status": "ok", "outputs": {"x": value}, "spec": spec} for name, spec in cases.items()]
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()


SPEC = {"compare": "close", "rtol": 1e-9, "atol": 1e-11, "dtype": True, "outputs": {}}


def test_the_same_specs_are_no_change():
    data = parse_probe_output(_run(a=SPEC, b=SPEC))
    assert spec_changes(data, parse_probe_output(_run(a=SPEC, b=SPEC))) == ""


def test_a_new_tolerance_is_a_change():
    looser = {**SPEC, "rtol": 1e-5}
    assert spec_changes(parse_probe_output(_run(a=SPEC, b=SPEC)), parse_probe_output(_run(a=SPEC, b=looser))) == "b"


def test_an_override_per_output_is_a_change():
    override = {**SPEC, "outputs": {"loss": {"dtype": False}}}
    assert spec_changes(parse_probe_output(_run(a=SPEC)), parse_probe_output(_run(a=override))) == "a"


def test_added_and_removed_cases_are_named():
    assert spec_changes(parse_probe_output(_run(a=SPEC, b=SPEC)), parse_probe_output(_run(a=SPEC, c=SPEC))) == "+c, -b"


KERNEL_SCRIPT = """import json, os, sys
from pathlib import Path
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
names = ("MKL_CBWR", "OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY")
(out / "kernels.json").write_text(json.dumps({n: os.environ.get(n, "") for n in names}))
"""


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd)


def test_tasks_fixtures_runs_make_fixtures_under_the_kernels_asked_for(tmp_path):
    """`lmrbench tasks fixtures --kernels K` runs make_fixtures.py in a sandbox with K's environment: a fixture
    that records the kernels, written under other-blas, checks under other-blas and (on x86-64) not pinned."""
    root = tmp_path / "suite"
    (write_task(root, "toy") / "make_fixtures.py").write_text(KERNEL_SCRIPT)
    names = ("MKL_CBWR", "OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY")
    res = cli("tasks", "fixtures", "--tasks", str(root), "-t", "toy", "--kernels", "other-blas", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    fixture = root / "toy" / "tests" / "fixtures" / "kernels.json"
    assert json.loads(fixture.read_text()) == {n: kernels_env("other-blas").get(n, "") for n in names}
    task = load_tasks(root).task("toy")
    assert build_fixtures(task, check=True, sandbox_config=SandboxConfig(kernels="other-blas")).ok
    pinned = build_fixtures(task, check=True, sandbox_config=SandboxConfig(kernels="pinned"))
    if kernels_env("pinned") != kernels_env("other-blas"):
        assert not pinned.ok and "differs: kernels.json" in pinned.detail
    else:  # not x86-64: other-blas is the pinned set
        assert pinned.ok
