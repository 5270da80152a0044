"""Evaluate the reference on every built-in task as model predictions (one sandbox each), cold and through the
pre-warmed template, side by side with 1 and 2 workers; print wall time, evaluations per second and the harness
overhead per evaluation (median and p90), and whether the two paths gave the same verdicts. `--executor local
ray` adds the same runs through the Ray executor (a private one-node Ray on this machine, started per run and
counted in its wall time) to compare its throughput with local threads.

Harness overhead per evaluation = its wall time minus the tests' own time (the probe cases' time as the probe
runner measures it, or pytest's): workspace copy, sandbox or child start, interpreter start and imports (cold
only), grading. The first evaluation of a template pays for starting it; it is counted.

`--kinds reference stub wrong` evaluates the stubs and hand-written wrong variants too (each as a model
prediction, one sandbox each, every case run): the check that both paths give every one of them the same verdict.

    python benchmarks/bench_evaluate.py [--workers 1 2] [--path template cold] [--executor local ray]
                                        [--kinds reference stub wrong] [-t GLOB ...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from lmrbench.evaluate.batch import evaluate_predictions
from lmrbench.evaluate.executors import ExecutorConfig
from lmrbench.evaluate.runner import EvalConfig
from lmrbench.records import Evaluation, Prediction
from lmrbench.solvers.builtin import code_prediction, reference_prediction, stub_prediction
from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.schema import Implementation, Task


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def run(preds, tasks, path: str, workers: int, executor: str) -> tuple[float, list[Evaluation]]:
    where = ExecutorConfig(kind=executor, workers=workers)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        evals = evaluate_predictions(preds, tasks, Path(tmp) / "e.jsonl", Path(tmp) / "w", Path(tmp) / "l",
                                     EvalConfig(path=path), executor_config=where)  # type: ignore[arg-type]
        return time.perf_counter() - t0, evals


def predictions(task: Task, impl: Implementation, kinds: list[str]) -> list[Prediction]:
    """The reference, the stub and the wrong variants (as validation builds them) of one implementation."""
    out = []
    if "reference" in kinds:
        out.append(reference_prediction(task, impl))
    if "stub" in kinds:
        out.append(stub_prediction(task, impl))
    if "wrong" in kinds and impl.golden_file is not None:
        golden = impl.golden_file.read_text(encoding="utf-8")
        out += [code_prediction(impl, f"wrong:{p.stem}", p.read_text(encoding="utf-8"), fallback=golden)
                for p in sorted(task.wrong_dir(impl.index).glob("*.py"))]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--path", nargs="+", default=["template", "cold"], choices=["template", "cold"])
    parser.add_argument("--executor", nargs="+", default=["local"], choices=["local", "ray"])
    parser.add_argument("--kinds", nargs="+", default=["reference"], choices=["reference", "stub", "wrong"])
    parser.add_argument("-t", "--task", action="append", default=None)
    args = parser.parse_args()
    tasks = load_tasks().restrict(split="all")  # lite and main (the upstream split needs its releases fetched)
    impls = tasks.select(args.task)
    preds = [p for i in impls for p in predictions(tasks.task(i.task_id), i, args.kinds)]
    print(f"{len(preds)} evaluations per run ({', '.join(args.kinds)})")
    verdicts: dict[str, dict[str, str]] = {}
    runs_wanted = [(x, w, p) for x in args.executor for w in args.workers for p in args.path]
    for executor, workers, path in runs_wanted:
        wall, evals = run(preds, tasks, path, workers, executor)
        verdicts[f"{executor}/{path}/{workers}"] = {f"{e.instance_id}|{e.model}": e.status.value for e in evals}
        overhead = [e.duration_s - e.tests_duration_s for e in evals]
        ran = sorted({e.run_path for e in evals})
        print(f"{executor:5s} {path:8s} workers={workers}: wall {wall:6.1f} s, {len(evals) / wall:5.2f} eval/s, "
              f"{sum(e.passed for e in evals)}/{len(evals)} passed (ran: {','.join(ran)}); overhead per "
              f"evaluation: median {statistics.median(overhead):.3f} s, p90 {p90(overhead):.3f} s; "
              f"tests median {statistics.median(e.tests_duration_s for e in evals):.3f} s")
    runs = list(verdicts.values())
    print("verdicts identical across paths and workers:", all(r == runs[0] for r in runs))


if __name__ == "__main__":
    main()
