"""The Ray executor: the same verdicts and the same run folder as local threads, on a two-node loopback cluster."""

from __future__ import annotations

import os

import pytest

from lmrbench.evaluate.batch import evaluate_predictions, load_predictions
from lmrbench.evaluate.executors import ExecutorConfig
from lmrbench.evaluate.regrade import regrade_run
from lmrbench.solvers.builtin import reference_prediction
from tests.evaluate.test_regrade import _preds as regrade_preds

# Read by Ray when it is imported: bind the test cluster and this driver to 127.0.0.1, send no telemetry.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster():
    """Two Ray nodes on this machine, bound to loopback only."""
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False,
                                                      "node_ip_address": "127.0.0.1"})
    c.add_node(num_cpus=1, node_ip_address="127.0.0.1")
    c.wait_for_nodes()
    yield c
    c.shutdown()


def _preds(tasks):
    """test_regrade's five (passed, stub, wrong, half right, broken diff) and a second sample of the reference."""
    task = tasks.task("toy")
    return [*regrade_preds(tasks), reference_prediction(task, task.implementation(1), sample=1)]


def _verdicts(evs):
    return sorted((e.model, e.sample, e.status.value, e.tests_passed, e.tests_total, tuple(e.failures), e.key)
                  for e in evs)


def test_ray_gives_the_local_verdicts_on_two_nodes_and_resumes(probe_tasks, tmp_path, cluster):
    local, remote = tmp_path / "local", tmp_path / "remote"
    preds = _preds(probe_tasks)
    want = evaluate_predictions(preds, probe_tasks, local / "evaluations.jsonl", local / "work", local / "logs",
                                workers=2)
    on_ray = ExecutorConfig(kind="ray", workers=1, ray_address=cluster.address)
    got = evaluate_predictions(preds, probe_tasks, remote / "evaluations.jsonl", remote / "work", remote / "logs",
                               executor_config=on_ray)
    assert _verdicts(got) == _verdicts(want), [(e.model, e.reason[:80]) for e in got]
    ran = [e for e in got if e.status.value != "invalid_prediction"]
    assert len({e.node for e in ran}) == 2 and all(e.node for e in ran)  # both nodes worked
    for ev in ran:  # the kept files came back into the driver's run folder, stored relative to it
        assert not ev.log_path.startswith("/") and (remote / ev.log_path).is_file()
        assert (remote / ev.outputs_path).is_file() and (remote / ev.candidate_path).is_file()
    rows = regrade_run(remote, probe_tasks)  # the kept probe data re-grade to the same verdicts
    assert len(rows) == len(preds) and all(r.same for r in rows)
    again = evaluate_predictions(preds, probe_tasks, remote / "evaluations.jsonl", remote / "work",
                                 remote / "logs", executor_config=on_ray)
    assert again == []  # resumable exactly as locally: nothing left to do


def test_generation_requests_run_on_both_nodes(probe_tasks, tmp_path, cluster):
    """`--executor ray` for generation: each query runs on a node's copy of the model, in turn; the driver writes
    the predictions, a model error on a node is a recorded failed prediction, and the answers grade as locally."""
    from lmrbench.generate import generate_with_model
    from lmrbench.models.base import ModelError
    from lmrbench.models.fake import FakeModel
    from lmrbench.models.ray_model import RayModel

    impl = probe_tasks.task("toy").implementation(1)
    answer = f"```python\n{impl.golden_file.read_text()}```\n"
    fake = FakeModel([answer, ModelError("boom")], name="fake/ray")  # each node's copy: an answer, then an error
    with RayModel(fake, cluster.address, per_node=1) as model:
        prog = generate_with_model(probe_tasks, model, "prompt", tmp_path, samples=4, concurrency=1,
                                   patterns=["toy/1"], papers_dir=tmp_path / "no-papers")
        nodes = dict(model.nodes)
    assert sorted(nodes.values()) == [2, 2]  # two nodes, taken in turn
    assert (prog.done, prog.failures) == (4, 2)
    preds, invalid = load_predictions(tmp_path / "predictions.jsonl", probe_tasks)
    assert invalid == [] and sorted(p.error is None for p in preds) == [False, False, True, True]
    assert all("boom" in p.error for p in preds if p.error)
    evs = evaluate_predictions([p for p in preds if p.error is None], probe_tasks, tmp_path / "evaluations.jsonl",
                               tmp_path / "work", tmp_path / "logs")
    assert [e.status.value for e in evs] == ["passed", "passed"]
