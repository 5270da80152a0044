"""Requirements that do not fit the harness's torch/numpy are replaced by a release that does, and the
substitution is recorded in the environment's record and in every result graded in it.

These build real environments with uv: from the package index (torchdata, 288 KB, pure Python) and from a local
wheelhouse written here (a package whose old release fails to import)."""

from __future__ import annotations

import json
import os
import subprocess
import zipfile
from pathlib import Path

from lmrbench.envs.build import EnvConfig, EnvStatus, attach_envs
from lmrbench.envs.compat import harness_constraints
from lmrbench.envs.spec import env_spec
from lmrbench.tasks.loader import load_tasks
from tests.cli_inprocess import run_cli
from tests.tasks.test_original import make_original

# torchdata 0.6.1 pins torch==2.0.1: installed beside the harness's torch it cannot work; its later releases
# (pure Python) work with any torch 2.
USES_TORCHDATA = """import sys, os
sys.path.insert(0, os.getcwd())
from torchdata.stateful_dataloader import StatefulDataLoader
from losses import loss
os.makedirs('unit_test/logs', exist_ok=True)
batches = [b.tolist() for b in StatefulDataLoader(list(range(4)), batch_size=2)]
ok = loss(1) == 3 and batches == [[0, 1], [2, 3]]
open('unit_test/logs/unit_test_1.log', 'w').write('Test Passed' if ok else 'Test Failed')
"""


def cli(*args: str, cwd: Path, cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, env=dict(os.environ, LMRBENCH_CACHE=str(cache), **env))


def test_harness_constraints_drop_the_local_build_tag(tmp_path):
    make_original(tmp_path / "d", "06-X", {}, {})
    spec = env_spec(load_tasks(tmp_path / "d").task("06-x"))
    pins = harness_constraints(spec).splitlines()
    import torch

    assert f"torch=={torch.__version__.split('+')[0]}" in pins and all("+" not in p for p in pins)


def test_a_pin_that_conflicts_with_the_harness_torch_is_substituted_through_run(tmp_path):
    data, cache = tmp_path / "datasets", tmp_path / "cache"
    make_original(data, "06-Data", {}, {"repo/requirements.txt": "torchdata==0.6.1\n",
                                        "repo/unit_test/unit_test_1.py": USES_TORCHDATA})
    built = cli("env", "build", "--tasks", str(data), cwd=tmp_path, cache=cache)
    assert built.returncode == 0, built.stderr[-3000:]
    assert "substituted to fit the harness: torchdata==0.6.1 -> torchdata==" in built.stdout
    [record] = [json.loads(p.read_text()) for p in (cache / "envs").glob("*/lmrbench-env.json")]
    [sub] = record["substituted"]
    assert sub["requirement"] == "torchdata==0.6.1" and sub["installed"] != "torchdata==0.6.1"
    assert "torch==2.0.1" in sub["reason"]  # the resolver's own words: what the old release needs
    res = cli("run", "--model", "reference", "--tasks", str(data), "--run-dir", "run", "--json", cwd=tmp_path,
              cache=cache)
    assert res.returncode == 0, res.stderr[-3000:]
    [ev] = [json.loads(line) for line in (tmp_path / "run" / "evaluations.jsonl").read_text().splitlines()]
    assert ev["status"] == "passed", ev["reason"]
    assert ev["env_substitutions"] == [f"torchdata==0.6.1 -> {sub['installed']}"]


def _wheel(folder: Path, version: str, body: str) -> None:
    """A minimal pure-Python wheel of `lmrbench-fixture-abi` (written by hand: two files and the metadata)."""
    name = f"lmrbench_fixture_abi-{version}"
    files = {"lmrbench_fixture_abi/__init__.py": body,
             f"{name}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: lmrbench-fixture-abi\nVersion: {version}\n",
             f"{name}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
                                        "Tag: py3-none-any\n",
             f"{name}.dist-info/top_level.txt": "lmrbench_fixture_abi\n"}
    record = "".join(f"{path},,\n" for path in files) + f"{name}.dist-info/RECORD,,\n"
    with zipfile.ZipFile(folder / f"{name}-py3-none-any.whl", "w") as zf:
        for path, text in {**files, f"{name}.dist-info/RECORD": record}.items():
            zf.writestr(path, text)


def test_a_release_that_fails_to_import_here_is_replaced_by_one_that_imports(tmp_path, monkeypatch):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "1.0", "raise ImportError('compiled against NumPy 1.x: cannot run with NumPy 2')\n")
    _wheel(wheels, "2.0", "VALUE = 2\n")
    monkeypatch.setenv("UV_FIND_LINKS", str(wheels))  # uv's own setting: a local wheelhouse beside the index
    make_original(tmp_path / "d", "01-Abi", {}, {"repo/requirements.txt": "lmrbench-fixture-abi==1.0\n"})
    ts = load_tasks(tmp_path / "d")
    [rec] = attach_envs(ts, {"01-abi"}, "task", EnvConfig(cache_dir=tmp_path / "cache"))
    assert rec.status is EnvStatus.READY
    [sub] = rec.substituted
    assert (sub.requirement, sub.installed) == ("lmrbench-fixture-abi==1.0", "lmrbench-fixture-abi==2.0")
    assert "does not import here" in sub.reason and "NumPy 1.x" in sub.reason
    assert rec.installed == ["lmrbench-fixture-abi==2.0"]  # what the environment holds now
    env = ts.task("01-abi").env
    assert env is not None and env.substituted == ["lmrbench-fixture-abi==1.0 -> lmrbench-fixture-abi==2.0"]
    out = subprocess.run([str(env.python), "-c", "import lmrbench_fixture_abi as m; print(m.VALUE)"],
                         capture_output=True, text=True)
    assert out.stdout.strip() == "2"


def test_without_the_index_nothing_is_substituted_and_the_failure_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("UV_OFFLINE", "1")  # uv's own setting: no network, and an empty cache
    make_original(tmp_path / "d", "06-Off", {}, {"repo/requirements.txt": "torchdata==0.6.1\n"})
    ts = load_tasks(tmp_path / "d")
    [rec] = attach_envs(ts, {"06-off"}, "task", EnvConfig(cache_dir=tmp_path / "cache"))
    assert rec.substituted == [] and [f.requirement for f in rec.failed] == ["torchdata==0.6.1"]
    assert rec.status is EnvStatus.PARTIAL
