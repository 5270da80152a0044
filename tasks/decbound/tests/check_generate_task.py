"""Trusted checks for decbound/1 (never enter the sandbox): hand-checked layouts and the properties of
`generate_task`, on the outputs probe_generate_task.py emitted. The default comparison with the reference's
outputs has already passed. Tolerances are the old tests' (np.testing.assert_allclose: rtol 1e-7 unless given)."""
import numpy as np

from lmrbench.checks import check, close, equal, expect

# fnmatch reads "[...]" as a character class, so parametrised cases are matched as "name*"


def _labels(value) -> list:
    return np.asarray(value).tolist()


@check("hand_checked_moons")
def hand_checked_moons(out, ref):
    # n0 = n1 = 2, t = linspace(0, pi, 2) = (0, pi): class 0 at (cos t, sin t) = (1, 0), (-1, 0);
    # class 1 at (1 - cos t, 0.5 - sin t) = (0, 0.5), (2, 0.5)
    close(out["X"], [[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5], [2.0, 0.5]], atol=1e-12, rtol=0, what="X")
    equal(_labels(out["y"]), [0, 0, 1, 1], what="y")


@check("hand_checked_circles")
def hand_checked_circles(out, ref):
    # n0 = n1 = 4, angles (0, pi/2, pi, 3 pi/2) (endpoint excluded); class 1 scaled by factor 0.5
    expected = [[1, 0], [0, 1], [-1, 0], [0, -1], [0.5, 0], [0, 0.5], [-0.5, 0], [0, -0.5]]
    close(out["X"], expected, atol=1e-12, rtol=0, what="X")
    equal(_labels(out["y"]), [0, 0, 0, 0, 1, 1, 1, 1], what="y")


@check("odd_size_gives_the_extra_point_to_class_one")
def odd_size(out, ref):
    # n0 = 5 // 2 = 2 and n1 = 3; moons class 1 with t = (0, pi/2, pi): (0, 0.5), (1, -0.5), (2, 0.5)
    equal(_labels(out["y"]), [0, 0, 1, 1, 1], what="y")
    close(out["X"][2:], [[0.0, 0.5], [1.0, -0.5], [2.0, 0.5]], atol=1e-12, rtol=0, what="class 1")


@check("linear_geometry_without_noise")
def linear_geometry(out, ref):
    # two parallel segments of length 2 (s from -1 to 1), one unit apart, evenly spaced points
    X = np.asarray(out["X"], dtype=np.float64)
    X0, X1 = X[:5], X[5:]
    direction = (X0[-1] - X0[0]) / 2
    close(np.linalg.norm(direction), 1.0, rtol=0, atol=1e-12, what="half segment length")
    close(X1[-1] - X1[0], X0[-1] - X0[0], atol=1e-12, rtol=0, what="parallel segments")
    close(np.diff(X0, axis=0), np.tile(direction / 2, (4, 1)), atol=1e-12, rtol=0, what="even spacing")
    normal = np.array([direction[1], -direction[0]])
    close(abs(float((X1[0] - X0[0]) @ normal)), 1.0, rtol=0, atol=1e-12, what="distance between segments")
    close((X1 - X0) @ direction, np.zeros(5), atol=1e-12, what="paired points face each other")
    # the midline u . x = offset lies within half a unit of the origin
    mid = (X0 + X1) / 2
    expect(abs(float(mid[0] @ normal)) <= 0.5 + 1e-12, "midline further than 0.5 from the origin")


@check("matches_reference*")  # also matches_reference_with_default_arguments[*]
def matches_reference(out, ref):
    equal(out["is_task"], True, what="returns a ClassificationTask")
    equal(out["kind"], ref["kind"], what="kind")
    equal(out["seed"], ref["seed"], what="seed")
    equal(out["X#dtype"], "float64", what="X dtype")
    equal(out["y#dtype"], "int64", what="y dtype")
    equal(_labels(out["y"]), _labels(ref["y"]), what="y")


@check("matches_reference_with_default_arguments*")
def default_seed(out, ref):
    equal(out["seed"], 0, what="default seed")


@check("deterministic_per_seed*")
def deterministic(out, ref):
    equal(out["a.X"], out["b.X"], what="X with the same seed")
    equal(out["a.y"], out["b.y"], what="y with the same seed")
    expect(not np.array_equal(out["a.X"], out["c.X"]), "another seed gives the same X")


@check("noise_is_gaussian_with_the_given_scale*")
def gaussian_noise(out, ref):
    residual = np.asarray(out["noisy.X"], dtype=np.float64) - np.asarray(out["clean.X"], dtype=np.float64)
    expect(abs(residual.mean()) < 0.01, f"noise mean {residual.mean():.4f} not within 0.01 of 0")
    close(residual.std(), 0.2, rtol=0.03, atol=1e-12, what="noise standard deviation")
    equal(out["noisy.y"], out["clean.y"], what="labels with and without noise")


def _key(X, y) -> list:
    return sorted(zip(map(tuple, np.round(np.asarray(X, dtype=np.float64), 12)), np.asarray(y).tolist(),
                      strict=True))


@check("shuffle_permutes_points_with_their_labels*")
def shuffle(out, ref):
    expect(not np.array_equal(out["ordered.y"], out["shuffled.y"]), "shuffle left the labels in order")
    expect(_key(out["shuffled.X"], out["shuffled.y"]) == _key(out["ordered.X"], out["ordered.y"]),
           "shuffled points are not a permutation of the ordered (point, label) pairs")


@check("circles_radii_and_factor")
def circles(out, ref):
    X, y = np.asarray(out["X"], dtype=np.float64), np.asarray(out["y"])
    r = np.linalg.norm(X, axis=1)
    close(r[y == 0], 1.0, atol=1e-12, what="outer radius")
    close(r[y == 1], 0.3, atol=1e-12, what="inner radius")
    expect((y == 0).sum() == 10 and (y == 1).sum() == 11, "class sizes are not 10 and 11")


@check("moons_shapes")
def moons(out, ref):
    X, y = np.asarray(out["X"], dtype=np.float64), np.asarray(out["y"])
    X0, X1 = X[y == 0], X[y == 1]
    close(np.linalg.norm(X0, axis=1), 1.0, atol=1e-12, what="class 0 radius")
    expect(bool((X0[:, 1] >= -1e-12).all()), "class 0 is not the upper half circle")
    close(np.linalg.norm(X1 - [1.0, 0.5], axis=1), 1.0, atol=1e-12, what="class 1 radius about (1, 0.5)")
    expect(bool((X1[:, 1] <= 0.5 + 1e-12).all()), "class 1 is not the lower half circle centred at (1, 0.5)")


@check("family_uses_per_task_seeds")
def family(out, ref):
    got = [(out[f"kinds.{i}"], out[f"seeds.{i}"]) for i in range(6)]
    equal(got, [("linear", 5), ("linear", 6), ("circles", 1005), ("circles", 1006), ("moons", 2005),
                ("moons", 2006)], what="(kind, seed) of the family")
    for i in range(6):
        equal(out[f"X.{i}"], out[f"again.{i}"], what=f"member {i} regenerated from its seed")
