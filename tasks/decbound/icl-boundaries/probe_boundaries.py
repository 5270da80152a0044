"""Generate a family of 2-D tasks, query an in-context learner on a grid and score its decision boundary."""
from __future__ import annotations

import argparse

import numpy as np

from boundary.learners import LinearLearner, NearestNeighbourLearner
from boundary.metrics import accuracy, boundary_roughness, label_image, render
from boundary.prompts import build_prompt, parse_answer
from boundary.tasks import probe_grid, task_family


def predict(learner, context_X, context_y, queries) -> np.ndarray:
    answers = [parse_answer(learner(build_prompt(context_X, context_y, q))) for q in queries]
    return np.array([-1 if a is None else a for a in answers])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tasks-per-kind", type=int, default=1)
    ap.add_argument("--context", type=int, default=32)
    ap.add_argument("--resolution", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    learners = {"3-NN": NearestNeighbourLearner(3), "linear": LinearLearner()}
    for task in task_family(args.tasks_per_kind, base_seed=args.seed, n_samples=args.context + 32):
        ctx_X, ctx_y = task.X[: args.context], task.y[: args.context]
        test_X, test_y = task.X[args.context:], task.y[args.context:]
        grid = probe_grid(task.X, resolution=args.resolution)
        for name, learner in learners.items():
            acc = accuracy(test_y, predict(learner, ctx_X, ctx_y, test_X))
            image = label_image(predict(learner, ctx_X, ctx_y, grid.points), args.resolution)
            print(f"== {task.kind} (seed {task.seed}) / {name}: test accuracy {acc:.3f}, "
                  f"boundary roughness {boundary_roughness(image):.3f}")
            print(render(image))


if __name__ == "__main__":
    main()
