"""Hidden tests for boundary.tasks.probe_grid."""
import json
from pathlib import Path

import numpy as np
import pytest

from boundary.metrics import label_image
from boundary.tasks import Grid, probe_grid

CASES = json.loads((Path(__file__).parent / "fixtures" / "grid_cases.json").read_text())


def test_hand_checked_grid():
    # x in [0, 2], pad 0.5 * 2 = 1 -> xs = linspace(-1, 3, 3) = (-1, 1, 3);
    # y in [0, 1], pad 0.5 * 1 = 0.5 -> ys = linspace(-0.5, 1.5, 3) = (-0.5, 0.5, 1.5); x varies fastest
    g = probe_grid(np.array([[0.0, 0.0], [2.0, 1.0]]), resolution=3, margin=0.5)
    assert isinstance(g, Grid)
    np.testing.assert_allclose(g.xs, [-1.0, 1.0, 3.0], atol=1e-12)
    np.testing.assert_allclose(g.ys, [-0.5, 0.5, 1.5], atol=1e-12)
    expected = [[-1, -0.5], [1, -0.5], [3, -0.5], [-1, 0.5], [1, 0.5], [3, 0.5], [-1, 1.5], [1, 1.5], [3, 1.5]]
    np.testing.assert_allclose(g.points, expected, atol=1e-12)


def test_degenerate_axis_uses_absolute_margin():
    # all y equal to 2: the y padding is the margin itself, 0.25 -> ys = linspace(1.75, 2.25, 3)
    g = probe_grid(np.array([[1.0, 2.0], [3.0, 2.0]]), resolution=3, margin=0.25)
    np.testing.assert_allclose(g.ys, [1.75, 2.0, 2.25], atol=1e-12)
    np.testing.assert_allclose(g.xs, [0.5, 2.0, 3.5], atol=1e-12)  # x span 2 -> pad 0.5


def test_single_point():
    g = probe_grid(np.array([[1.0, -1.0]]), resolution=2, margin=1.0)
    np.testing.assert_allclose(g.points, [[0, -2], [2, -2], [0, 0], [2, 0]], atol=1e-12)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_matches_reference(k):
    c = CASES[k]
    if c.get("defaults"):
        g = probe_grid(np.array(c["X"]))
        assert g.points.shape == (2500, 2)  # resolution 50
    else:
        g = probe_grid(np.array(c["X"]), resolution=c["resolution"], margin=c["margin"])
        assert g.points.shape == (c["resolution"] ** 2, 2)
    assert g.points.dtype == np.float64
    np.testing.assert_allclose(g.xs, c["xs"], atol=1e-12, rtol=1e-12)
    np.testing.assert_allclose(g.ys, c["ys"], atol=1e-12, rtol=1e-12)
    np.testing.assert_allclose(g.points, c["points"], atol=1e-12, rtol=1e-12)


def test_grid_covers_the_data_and_images_line_up():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 2)) * [3.0, 0.5]
    g = probe_grid(X, resolution=9, margin=0.0)
    np.testing.assert_allclose(g.points.min(axis=0), X.min(axis=0), atol=1e-12)
    np.testing.assert_allclose(g.points.max(axis=0), X.max(axis=0), atol=1e-12)
    labels = (g.points[:, 0] > g.points[:, 1]).astype(int)
    image = label_image(labels, 9)
    for i in range(9):
        for j in range(9):
            assert image[i, j] == int(g.xs[j] > g.ys[i])


def test_accepts_lists():
    g = probe_grid([[0.0, 0.0], [1.0, 1.0]], resolution=2, margin=0.0)
    np.testing.assert_allclose(g.points, [[0, 0], [1, 0], [0, 1], [1, 1]], atol=1e-12)


def test_rejects_bad_arguments():
    with pytest.raises(ValueError):
        probe_grid(np.zeros((3, 2)), resolution=1)
    with pytest.raises(ValueError):
        probe_grid(np.zeros((3, 3)), resolution=5)
    with pytest.raises(ValueError):
        probe_grid(np.zeros((0, 2)), resolution=5)
