"""Trusted checks for decbound/2 (never enter the sandbox): hand-checked grids and the properties of
`probe_grid`, on the outputs probe_probe_grid.py emitted. The default comparison with the reference's outputs
has already passed. Tolerances are the old tests' (np.testing.assert_allclose: rtol 1e-7 unless given)."""
import numpy as np

from lmrbench.checks import check, close, equal, expect

# fnmatch reads "[...]" as a character class, so parametrised cases are matched as "name*"


@check("hand_checked_grid")
def hand_checked_grid(out, ref):
    # x in [0, 2], pad 0.5 * 2 = 1 -> xs = linspace(-1, 3, 3) = (-1, 1, 3);
    # y in [0, 1], pad 0.5 * 1 = 0.5 -> ys = linspace(-0.5, 1.5, 3) = (-0.5, 0.5, 1.5); x varies fastest
    equal(out["is_grid"], True, what="returns a Grid")
    close(out["xs"], [-1.0, 1.0, 3.0], atol=1e-12, what="xs")
    close(out["ys"], [-0.5, 0.5, 1.5], atol=1e-12, what="ys")
    expected = [[-1, -0.5], [1, -0.5], [3, -0.5], [-1, 0.5], [1, 0.5], [3, 0.5], [-1, 1.5], [1, 1.5], [3, 1.5]]
    close(out["points"], expected, atol=1e-12, what="points")


@check("degenerate_axis_uses_absolute_margin")
def degenerate_axis(out, ref):
    # all y equal to 2: the y padding is the margin itself, 0.25 -> ys = linspace(1.75, 2.25, 3)
    close(out["ys"], [1.75, 2.0, 2.25], atol=1e-12, what="ys")
    close(out["xs"], [0.5, 2.0, 3.5], atol=1e-12, what="xs")  # x span 2 -> pad 0.5


@check("single_point")
def single_point(out, ref):
    close(out["points"], [[0, -2], [2, -2], [0, 0], [2, 0]], atol=1e-12, what="points")


@check("matches_reference*")
def matches_reference(out, ref):
    resolution = 50 if ref["defaults"] else ref["resolution"]  # the documented default resolution is 50
    equal(tuple(np.shape(out["points"])), (resolution**2, 2), what="points shape")
    equal(out["points#dtype"], "float64", what="points dtype")


@check("grid_covers_the_data_and_images_line_up")
def covers_and_lines_up(out, ref):
    X = ref["X"]
    points, xs, ys, image = out["points"], out["xs"], out["ys"], out["image"]
    close(points.min(axis=0), X.min(axis=0), atol=1e-12, what="grid minimum")
    close(points.max(axis=0), X.max(axis=0), atol=1e-12, what="grid maximum")
    for i in range(9):
        for j in range(9):
            expect(image[i, j] == int(xs[j] > ys[i]), f"image[{i}, {j}] does not belong to (xs[{j}], ys[{i}])")


@check("accepts_lists")
def accepts_lists(out, ref):
    close(out["points"], [[0, 0], [1, 0], [0, 1], [1, 1]], atol=1e-12, what="points")
