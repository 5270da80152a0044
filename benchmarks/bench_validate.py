"""Validation throughput: the same jobs (reference, stub, wrong variants) cold and in warm batches.

Prints, for each mode, wall time, jobs per second, and whether the verdicts agree job for job.

    python benchmarks/bench_validate.py [--task GLOB ...] [--workers 2] [--batch-size 12]
"""

from __future__ import annotations

import argparse
import time

from lmrbench.authoring.validate import ValidateConfig, validate
from lmrbench.tasks.loader import load_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-t", "--task", action="append", default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=12)
    args = parser.parse_args()
    tasks = load_tasks().restrict(split="all")  # lite and main (the upstream split needs its releases fetched)
    impls = [(tasks.task(i.task_id), i) for i in tasks.select(args.task)]
    verdicts = {}
    for warm in (True, False):
        cfg = ValidateConfig(repeat=1, workers=args.workers, warm=warm, batch_size=args.batch_size)
        t0 = time.perf_counter()
        results = validate(impls, cfg)
        wall = time.perf_counter() - t0
        jobs = sum(r.reference_runs + 1 + r.wrong_total for r in results)
        verdicts[warm] = [(r.instance_id, r.reference_passed, r.stub_status, r.wrong_caught) for r in results]
        print(f"{'warm' if warm else 'cold'}: {jobs} jobs over {len(impls)} implementations in {wall:.1f} s "
              f"({jobs / wall:.2f} jobs/s), all ok: {all(r.ok for r in results)}")
    print(f"verdicts agree: {verdicts[True] == verdicts[False]}")


if __name__ == "__main__":
    main()
