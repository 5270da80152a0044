"""A requirement that names the repository's own package (02-HITs lists `hierarchy_transformers`, which its
repository holds under src/) is imported from the workspace, where the prediction is: the index's release would
shadow the repository's code, and the test would never run the prediction."""

from lmrbench.envs.build import EnvConfig, EnvStatus, attach_envs
from lmrbench.envs.spec import env_spec
from lmrbench.evaluate.runner import evaluate_one
from lmrbench.records import Status
from lmrbench.solvers.builtin import reference_prediction
from lmrbench.tasks.loader import load_tasks
from tests.tasks.test_original import make_original

IMPORTS_OWN = """import sys, os
sys.path.insert(0, os.getcwd())
from lmrbench_own_pkg import VALUE
from losses import loss
os.makedirs('unit_test/logs', exist_ok=True)
ok = loss(1) == 3 and VALUE == 'from the workspace'
open('unit_test/logs/unit_test_1.log', 'w').write('Test Passed' if ok else 'Test Failed')
"""


def test_the_repositorys_own_package_comes_from_the_workspace(tmp_path):
    make_original(tmp_path / "d", "02-Own", {}, {
        "repo/requirements.txt": "lmrbench-own-pkg\n",  # not on the index: installing it would fail
        "repo/src/lmrbench_own_pkg/__init__.py": "VALUE = 'from the workspace'\n",
        "repo/unit_test/unit_test_1.py": IMPORTS_OWN})
    ts = load_tasks(tmp_path / "d")
    task = ts.task("02-own")
    spec = env_spec(task)
    assert spec.own == ["lmrbench-own-pkg"] and spec.requirements == [] and spec.sys_path(task.repo_dir) == ["src"]
    [rec] = attach_envs(ts, {"02-own"}, "task", EnvConfig(cache_dir=tmp_path / "cache"))
    assert rec.status is EnvStatus.READY and rec.failed == []
    impl = task.implementation(1)
    ev = evaluate_one(task, impl, reference_prediction(task, impl), tmp_path / "w", tmp_path / "l")
    assert ev.status is Status.PASSED, ev.reason
