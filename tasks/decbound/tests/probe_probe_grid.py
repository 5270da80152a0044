"""Probe for decbound/2: `probe_grid` in boundary/tasks.py. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_probe_grid.py add the hand-checked grids and the properties of the grid."""
import json
from pathlib import Path

import numpy as np

from boundary.metrics import label_image
from boundary.tasks import Grid, probe_grid
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "grid_cases.json").read_text())
TOL = dict(rtol=1e-12, atol=1e-12)  # the old differential test's tolerance


def emit(g) -> dict:
    return {"is_grid": isinstance(g, Grid), "points": g.points, "xs": g.xs, "ys": g.ys}


@case(**TOL)
def hand_checked_grid():
    return emit(probe_grid(np.array([[0.0, 0.0], [2.0, 1.0]]), resolution=3, margin=0.5))


@case(**TOL)
def degenerate_axis_uses_absolute_margin():
    return emit(probe_grid(np.array([[1.0, 2.0], [3.0, 2.0]]), resolution=3, margin=0.25))


@case(**TOL)
def single_point():
    return emit(probe_grid(np.array([[1.0, -1.0]]), resolution=2, margin=1.0))


@case(params=range(len(CASES)), **TOL)
def matches_reference(k):
    c = CASES[k]
    if c.get("defaults"):
        g = probe_grid(np.array(c["X"]))
    else:
        g = probe_grid(np.array(c["X"]), resolution=c["resolution"], margin=c["margin"])
    return {"defaults": bool(c.get("defaults")), "resolution": c.get("resolution"), **emit(g)}


@case(**TOL)
def grid_covers_the_data_and_images_line_up():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 2)) * [3.0, 0.5]
    g = probe_grid(X, resolution=9, margin=0.0)
    labels = (g.points[:, 0] > g.points[:, 1]).astype(int)
    return {"X": X, **emit(g), "image": label_image(labels, 9)}


@case(**TOL)
def accepts_lists():
    return emit(probe_grid([[0.0, 0.0], [1.0, 1.0]], resolution=2, margin=0.0))


@case
def rejects_resolution_one():
    return {"result": probe_grid(np.zeros((3, 2)), resolution=1)}


@case
def rejects_three_columns():
    return {"result": probe_grid(np.zeros((3, 3)), resolution=5)}


@case
def rejects_empty_data():
    return {"result": probe_grid(np.zeros((0, 2)), resolution=5)}
