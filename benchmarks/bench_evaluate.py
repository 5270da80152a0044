"""Evaluate the reference on every built-in task with 1 and 2 workers; print wall time and harness overhead.

Harness overhead per evaluation = its wall time minus the tests' own time as pytest reports it (workspace copy,
sandbox start, interpreter and pytest start-up, imports, grading).

    python benchmarks/bench_evaluate.py [--workers 1 2] [--task GLOB ...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from lmrbench.evaluate.batch import evaluate_predictions
from lmrbench.solvers.builtin import reference_prediction
from lmrbench.tasks.loader import load_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("-t", "--task", action="append", default=None)
    args = parser.parse_args()
    tasks = load_tasks()
    impls = tasks.select(args.task)
    preds = [reference_prediction(tasks.task(i.task_id), i) for i in impls]
    print(f"{len(preds)} reference evaluations")
    for workers in args.workers:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            evals = evaluate_predictions(preds, tasks, Path(tmp) / "e.jsonl", Path(tmp) / "w", Path(tmp) / "l",
                                         workers=workers)
            wall = time.perf_counter() - t0
        passed = sum(e.passed for e in evals)
        overhead = [e.duration_s - e.tests_duration_s for e in evals]
        tests = [e.tests_duration_s for e in evals]
        print(f"workers={workers}: wall {wall:.1f} s for {len(evals)} evaluations ({passed} passed); "
              f"per evaluation: median wall {statistics.median(e.duration_s for e in evals):.2f} s, "
              f"median tests {statistics.median(tests):.2f} s, median overhead {statistics.median(overhead):.2f} s, "
              f"mean overhead {statistics.mean(overhead):.2f} s")


if __name__ == "__main__":
    main()
