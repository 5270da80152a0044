"""Hidden tests for boundary.tasks.generate_task."""
import json
from pathlib import Path

import numpy as np
import pytest

from boundary.tasks import TASK_KINDS, ClassificationTask, generate_task, task_family

CASES = json.loads((Path(__file__).parent / "fixtures" / "task_cases.json").read_text())


# ---------------------------------------------------------------- hand-checked values


def test_hand_checked_moons():
    # n0 = n1 = 2, t = linspace(0, pi, 2) = (0, pi): class 0 at (cos t, sin t) = (1, 0), (-1, 0);
    # class 1 at (1 - cos t, 0.5 - sin t) = (0, 0.5), (2, 0.5)
    t = generate_task("moons", n_samples=4, seed=0, noise=0.0, shuffle=False)
    np.testing.assert_allclose(t.X, [[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5], [2.0, 0.5]], atol=1e-12, rtol=0)
    assert t.y.tolist() == [0, 0, 1, 1]


def test_hand_checked_circles():
    # n0 = n1 = 4, angles (0, pi/2, pi, 3 pi/2) (endpoint excluded); class 1 scaled by factor 0.5
    t = generate_task("circles", n_samples=8, seed=0, noise=0.0, factor=0.5, shuffle=False)
    expected = [[1, 0], [0, 1], [-1, 0], [0, -1], [0.5, 0], [0, 0.5], [-0.5, 0], [0, -0.5]]
    np.testing.assert_allclose(t.X, expected, atol=1e-12, rtol=0)
    assert t.y.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]


def test_odd_size_gives_the_extra_point_to_class_one():
    # n0 = 5 // 2 = 2 and n1 = 3; moons class 1 with t = (0, pi/2, pi): (0, 0.5), (1, -0.5), (2, 0.5)
    t = generate_task("moons", n_samples=5, seed=0, noise=0.0, shuffle=False)
    assert t.y.tolist() == [0, 0, 1, 1, 1]
    np.testing.assert_allclose(t.X[2:], [[0.0, 0.5], [1.0, -0.5], [2.0, 0.5]], atol=1e-12, rtol=0)


def test_linear_geometry_without_noise():
    # two parallel segments of length 2 (s from -1 to 1), one unit apart, evenly spaced points
    t = generate_task("linear", n_samples=10, seed=3, noise=0.0, shuffle=False)
    X0, X1 = t.X[:5], t.X[5:]
    direction = (X0[-1] - X0[0]) / 2
    assert np.linalg.norm(direction) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(X1[-1] - X1[0], X0[-1] - X0[0], atol=1e-12, rtol=0)
    np.testing.assert_allclose(np.diff(X0, axis=0), np.tile(direction / 2, (4, 1)), atol=1e-12, rtol=0)
    normal = np.array([direction[1], -direction[0]])
    assert abs(float((X1[0] - X0[0]) @ normal)) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose((X1 - X0) @ direction, 0.0, atol=1e-12)  # paired points face each other
    # the midline u . x = offset lies within half a unit of the origin
    mid = (X0 + X1) / 2
    assert abs(float(mid[0] @ normal)) <= 0.5 + 1e-12


# ---------------------------------------------------------------- differential (fixtures from the reference)


@pytest.mark.parametrize("k", [k for k, c in enumerate(CASES) if not c.get("defaults")])
def test_matches_reference(k):
    c = CASES[k]
    t = generate_task(c["kind"], n_samples=c["n_samples"], seed=c["seed"], noise=c["noise"], factor=c["factor"],
                      shuffle=c["shuffle"])
    assert isinstance(t, ClassificationTask) and t.kind == c["kind"] and t.seed == c["seed"]
    assert t.X.dtype == np.float64 and t.X.shape == (c["n_samples"], 2)
    assert t.y.dtype == np.int64 and t.y.tolist() == c["y"]
    np.testing.assert_allclose(t.X, np.array(c["X"]), atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("k", [k for k, c in enumerate(CASES) if c.get("defaults")])
def test_matches_reference_with_default_arguments(k):
    c = CASES[k]
    t = generate_task(c["kind"])
    assert t.seed == 0 and t.y.tolist() == c["y"]
    np.testing.assert_allclose(t.X, np.array(c["X"]), atol=1e-12, rtol=1e-12)


# ---------------------------------------------------------------- properties


@pytest.mark.parametrize("kind", TASK_KINDS)
def test_deterministic_per_seed(kind):
    a = generate_task(kind, n_samples=40, seed=11)
    b = generate_task(kind, n_samples=40, seed=11)
    c = generate_task(kind, n_samples=40, seed=12)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


@pytest.mark.parametrize("kind", TASK_KINDS)
def test_noise_is_gaussian_with_the_given_scale(kind):
    clean = generate_task(kind, n_samples=4000, seed=5, noise=0.0, shuffle=False)
    noisy = generate_task(kind, n_samples=4000, seed=5, noise=0.2, shuffle=False)
    residual = noisy.X - clean.X
    assert abs(residual.mean()) < 0.01
    assert residual.std() == pytest.approx(0.2, rel=0.03)
    np.testing.assert_array_equal(noisy.y, clean.y)


@pytest.mark.parametrize("kind", TASK_KINDS)
def test_shuffle_permutes_points_with_their_labels(kind):
    ordered = generate_task(kind, n_samples=30, seed=2, noise=0.1, shuffle=False)
    shuffled = generate_task(kind, n_samples=30, seed=2, noise=0.1, shuffle=True)
    assert not np.array_equal(ordered.y, shuffled.y)
    key = lambda X, y: sorted(zip(map(tuple, np.round(X, 12)), y.tolist()))  # noqa: E731
    assert key(shuffled.X, shuffled.y) == key(ordered.X, ordered.y)


def test_circles_radii_and_factor():
    t = generate_task("circles", n_samples=21, seed=0, noise=0.0, factor=0.3)
    r = np.linalg.norm(t.X, axis=1)
    np.testing.assert_allclose(r[t.y == 0], 1.0, atol=1e-12)
    np.testing.assert_allclose(r[t.y == 1], 0.3, atol=1e-12)
    assert (t.y == 0).sum() == 10 and (t.y == 1).sum() == 11


def test_moons_shapes():
    t = generate_task("moons", n_samples=50, seed=1, noise=0.0)
    X0, X1 = t.X[t.y == 0], t.X[t.y == 1]
    np.testing.assert_allclose(np.linalg.norm(X0, axis=1), 1.0, atol=1e-12)
    assert (X0[:, 1] >= -1e-12).all()  # upper half circle
    np.testing.assert_allclose(np.linalg.norm(X1 - [1.0, 0.5], axis=1), 1.0, atol=1e-12)
    assert (X1[:, 1] <= 0.5 + 1e-12).all()  # lower half circle centred at (1, 0.5)


def test_family_uses_per_task_seeds():
    fam = task_family(2, base_seed=5, n_samples=12)
    assert [(t.kind, t.seed) for t in fam] == [("linear", 5), ("linear", 6), ("circles", 1005), ("circles", 1006),
                                               ("moons", 2005), ("moons", 2006)]
    for t in fam:
        again = generate_task(t.kind, 12, t.seed, 0.1)
        np.testing.assert_array_equal(t.X, again.X)


def test_rejects_bad_arguments():
    with pytest.raises(ValueError):
        generate_task("spirals", n_samples=10)
    with pytest.raises(ValueError):
        generate_task("moons", n_samples=1)
