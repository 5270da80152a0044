"""Where evaluations run: a thread pool on this machine, or Ray tasks across the machines of a cluster.

Both executors take the same items and yield one Evaluation per item, in completion order. Only the caller
(`batch.evaluate_predictions`) writes records, so a run folder is written by the driver alone and resumes the same
way whichever executor filled it. On Ray, each node runs one `NodeEvaluator` actor that owns the node's sandbox
pool (its pre-warmed templates); task folders travel once per node through the object store; the files an
evaluation keeps (log, probe data, candidate code) come back with its record and are written into the run folder
by the driver.
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from lmrbench import __version__
from lmrbench.evaluate.probes import read_capped
from lmrbench.evaluate.runner import EvalConfig, SandboxPool, evaluate_one, task_hash
from lmrbench.raycluster import connect, cpu_node_strategies
from lmrbench.records import Evaluation, Prediction, Status, read_instance_id
from lmrbench.tasks.loader import load_task
from lmrbench.tasks.schema import Implementation, Task, TaskEnv

ExecutorKind = Literal["local", "ray"]
ARTEFACT_BYTES = 8 * 1024 * 1024  # per kept file sent back from a node (the log and probe data are capped anyway)


class ExecutorConfig(BaseModel):
    """Where and how widely evaluations run."""

    kind: ExecutorKind = Field(
        default="local",
        description="'local': a thread pool on this machine; 'ray': Ray tasks, one actor per node of the cluster.",
    )
    workers: int = Field(default=1, ge=1, description="Evaluations in parallel: on this machine (local) or on "
                         "each node (ray).")
    ray_address: str | None = Field(
        default=None,
        description="The Ray cluster to join ('auto', 'HOST:6379', 'ray://HOST:10001'); None starts a private "
        "one-node Ray on this machine. Every node needs this version of lmrbench installed.",
    )


@dataclass(frozen=True)
class EvalItem:
    """One prediction to evaluate, with its task and its evaluation key."""

    task: Task
    impl: Implementation
    pred: Prediction
    key: str


class Executor(Protocol):
    """Evaluates items and yields their records as they finish; never raises for what an item contains."""

    def run(self, items: list[EvalItem]) -> Iterator[Evaluation]: ...


def error_record(pred: Prediction, key: str, where: str, exc: BaseException) -> Evaluation:
    """The record of an item whose evaluation the harness itself (or a Ray node) could not finish."""
    task_id, index = read_instance_id(pred.instance_id)
    return Evaluation(instance_id=pred.instance_id, task_id=task_id, index=index,
                      model=pred.model, sample=pred.sample, key=key, status=Status.ERROR,
                      reason=f"{where} error: {type(exc).__name__}: {str(exc)[:500]}")


class LocalExecutor:
    """Threads on this machine, one sandbox per evaluation from one shared pool."""

    def __init__(self, config: EvalConfig, workers: int, work_dir: Path, log_dir: Path) -> None:
        self.config, self.workers = config, workers
        self.work_dir, self.log_dir = work_dir, log_dir
        self.pool = SandboxPool(config)

    def _one(self, item: EvalItem) -> Evaluation:
        try:
            return evaluate_one(item.task, item.impl, item.pred, self.work_dir, self.log_dir, self.config,
                                self.pool.for_task(item.task), item.key)
        except Exception as exc:
            return error_record(item.pred, item.key, "harness", exc)

    def run(self, items: list[EvalItem]) -> Iterator[Evaluation]:
        with ThreadPoolExecutor(max_workers=self.workers) as threads:
            for fut in as_completed([threads.submit(self._one, item) for item in items]):
                yield fut.result()


# ---------------------------------------------------------------------------------------------------- Ray


class NodeResult(BaseModel):
    """What a node sends back for one item: its record and the files the record points at."""

    evaluation: Evaluation
    files: dict[str, bytes] = Field(default_factory=dict, description="Kept file name -> content.")
    node: str = Field(description="The Ray node id that ran it.")


def pack_task(task: Task) -> bytes:
    """The task folder as an in-memory tar (caches left out)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(task.root, arcname=task.root.name,
                filter=lambda info: None if "__pycache__" in info.name else info)
    return buf.getvalue()


class NodeEvaluator:
    """Runs on one node (a Ray actor): unpacks task folders once, keeps the node's sandbox pool warm."""

    def __init__(self, config_json: str, version: str) -> None:
        self.config = EvalConfig.model_validate_json(config_json)
        self.version = version
        self.pool = SandboxPool(self.config)
        self.root = Path(tempfile.mkdtemp(prefix="lmrbench-node-"))
        self.tasks: dict[str, Task] = {}

    def node(self) -> str:
        import ray  # only ever runs inside a Ray worker

        return str(ray.get_runtime_context().get_node_id())

    def _task(self, digest: str, bundle: list[Any], env_json: str | None) -> Task:
        if digest not in self.tasks:
            import ray

            dest = self.root / "tasks" / digest
            with tarfile.open(fileobj=io.BytesIO(ray.get(bundle[0])), mode="r:gz") as tar:
                tar.extractall(dest, filter="data")
            (folder,) = [p for p in dest.iterdir() if p.is_dir()]
            task = load_task(folder, [])
            if task is None:
                raise ValueError(f"the task folder {folder.name} did not load on this node")
            if env_json is not None:
                env = TaskEnv.model_validate_json(env_json)
                if not env.python.exists():
                    raise FileNotFoundError(f"this node has no environment at {env.python}; run `lmrbench env "
                                            "build` on every node")
                task.env = env
            self.tasks[digest] = task
        return self.tasks[digest]

    def evaluate(self, digest: str, bundle: list[Any], env_json: str | None, index: int, pred_json: str,
                 key: str, version: str) -> NodeResult:
        pred = Prediction.model_validate_json(pred_json)
        try:
            if version != self.version:
                raise RuntimeError(f"this node runs lmrbench {self.version}, the driver {version}")
            task = self._task(digest, bundle, env_json)
            impl = next(i for i in task.implementations if i.index == index)
            logs = self.root / "logs" / key[:24]
            ev = evaluate_one(task, impl, pred, self.root / "work", logs, self.config, self.pool.for_task(task), key)
            kept = sorted(logs.iterdir()) if logs.is_dir() else []  # an invalid prediction keeps nothing
            files = {p.name: read_capped(p, ARTEFACT_BYTES) or b"" for p in kept if p.is_file()}
            shutil.rmtree(logs, ignore_errors=True)
        except Exception as exc:
            ev, files = error_record(pred, key, "node", exc), {}
        return NodeResult(evaluation=ev, files=files, node=self.node())


class RayExecutor:
    """Ray tasks: one NodeEvaluator per alive node, `workers` evaluations in flight on each."""

    def __init__(self, config: EvalConfig, workers: int, address: str | None, log_dir: Path) -> None:
        self.config, self.workers, self.address, self.log_dir = config, workers, address, log_dir

    def _actors(self, ray: Any) -> list[Any]:
        remote = ray.remote(NodeEvaluator)
        config_json = self.config.model_dump_json()
        return [remote.options(num_cpus=0, max_concurrency=self.workers, scheduling_strategy=where)
                .remote(config_json, __version__) for where in cpu_node_strategies(ray)]

    def _keep(self, result: NodeResult) -> Evaluation:
        """Write the node's files into the run folder and point the record at them."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for name, data in result.files.items():
            if "/" not in name and name not in ("", ".", ".."):
                (self.log_dir / name).write_bytes(data)
        ev = result.evaluation
        moved = {f: str(self.log_dir / Path(getattr(ev, f)).name) if getattr(ev, f) else ""
                 for f in ("log_path", "outputs_path", "candidate_path")}
        return ev.model_copy(update={**moved, "node": result.node})

    def run(self, items: list[EvalItem]) -> Iterator[Evaluation]:
        if not items:
            return
        ray, owned = connect(self.address, self.workers)
        try:
            actors = self._actors(ray)
            bundles: dict[str, Any] = {}
            todo = list(reversed(items))
            flight: dict[Any, tuple[EvalItem, Any]] = {}

            def submit(actor: Any) -> None:
                item = todo.pop()
                digest = task_hash(item.task)
                if digest not in bundles:
                    bundles[digest] = ray.put(pack_task(item.task))
                env = item.task.env.model_dump_json() if item.task.env else None
                ref = actor.evaluate.remote(digest, [bundles[digest]], env, item.impl.index,
                                            item.pred.model_dump_json(), item.key, __version__)
                flight[ref] = (item, actor)

            for _ in range(self.workers):
                for actor in actors:
                    if todo:
                        submit(actor)
            while flight:
                (ref,), _ = ray.wait(list(flight), num_returns=1)
                item, actor = flight.pop(ref)
                try:
                    yield self._keep(ray.get(ref))
                except Exception as exc:  # the actor or its node died
                    yield error_record(item.pred, item.key, "ray", exc)
                if todo:
                    submit(actor)
        finally:
            if owned:
                ray.shutdown()


def make_executor(exec_config: ExecutorConfig, config: EvalConfig, work_dir: Path, log_dir: Path) -> Executor:
    if exec_config.kind == "ray":
        return RayExecutor(config, exec_config.workers, exec_config.ray_address, log_dir)
    return LocalExecutor(config, exec_config.workers, work_dir, log_dir)
