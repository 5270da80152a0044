"""Building a task environment with uv (offline cases only: no requirement is downloaded here)."""

import subprocess

from lmrbench.envs.build import EnvConfig, EnvStatus, attach_envs, build_env
from lmrbench.evaluate.runner import evaluate_one
from lmrbench.records import ErrorCause, Prediction, Status
from lmrbench.solvers.builtin import reference_prediction
from lmrbench.tasks.loader import load_tasks
from tests.tasks.test_original import TEST, make_original

PREFIX_TEST = TEST + "print('PREFIX', sys.prefix)\n"


def test_env_without_requirements_is_layered_over_the_harness(tmp_path):
    make_original(tmp_path / "d", "27-Lion", {}, {"repo/unit_test/unit_test_1.py": PREFIX_TEST})
    ts = load_tasks(tmp_path / "d")
    cfg = EnvConfig(cache_dir=tmp_path / "cache")
    [rec] = attach_envs(ts, {"27-lion"}, "task", cfg)
    assert rec.status is EnvStatus.READY and not rec.reused
    task = ts.task("27-lion")
    assert task.env is not None and task.env.root.parent == tmp_path / "cache" / "envs"
    # the harness's packages are visible through the .pth file, the interpreter is the env's own
    out = subprocess.run([str(task.env.python), "-c", "import sys, pydantic; print(sys.prefix)"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == str(task.env.root)
    assert build_env(task, cfg).reused  # cached under its key
    ev = evaluate_one(task, task.implementation(1), reference_prediction(task, task.implementation(1)),
                      tmp_path / "w", tmp_path / "l")
    assert ev.status is Status.PASSED
    assert f"PREFIX {task.env.root}" in (tmp_path / "l").joinpath(ev.log_path).read_text()


def test_uninstallable_local_package_is_named_and_makes_errors(tmp_path):
    make_original(tmp_path / "d", "25-Ada", {}, {"repo/requirements.txt": "-e broken\n",
                                                 "repo/broken/pyproject.toml": "this is [not toml\n"})
    ts = load_tasks(tmp_path / "d")
    [rec] = attach_envs(ts, {"25-ada"}, "task", EnvConfig(cache_dir=tmp_path / "cache"))
    assert rec.status is EnvStatus.PARTIAL and [f.requirement for f in rec.failed] == ["broken (local package)"]
    task = ts.task("25-ada")
    body = "def loss(x):\n    return 0\n"
    wrong = Prediction(instance_id="25-ada/1", model="m", functions={"losses.py": {"loss": body}})
    ev = evaluate_one(task, task.implementation(1), wrong, tmp_path / "w", tmp_path / "l")
    assert ev.status is Status.ERROR and ev.cause is ErrorCause.PACKAGE_INSTALL and "broken" in ev.reason
    # a run that passes is measured all the same
    ok = evaluate_one(task, task.implementation(1), reference_prediction(task, task.implementation(1)),
                      tmp_path / "w", tmp_path / "l")
    assert ok.status is Status.PASSED


def test_shared_mode_attaches_nothing(tmp_path):
    make_original(tmp_path / "d", "27-Lion", {}, {})
    ts = load_tasks(tmp_path / "d")
    assert attach_envs(ts, {"27-lion"}, "shared", EnvConfig(cache_dir=tmp_path / "cache")) == []
    assert ts.task("27-lion").env is None
