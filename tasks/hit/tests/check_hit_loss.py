"""Trusted checks for hit/1 (never enter the sandbox): hand-checked values and the geometry's properties, on
the outputs probe_hit_loss.py emitted. The default comparison with the reference's outputs has already passed
(except for the two Euclidean-limit cases, which only these checks judge)."""
import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

RTOL, ATOL = 1e-7, 1e-9
FIELDS = ("loss", "cluster", "centripetal")


def shape(out: dict, key: str) -> tuple:
    """The shape the probe recorded for output `key` (under `shapes.<key>`, a list of ints)."""
    marker = out.get(f"shapes.{key}")
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: no shape recorded (not a tensor?)")
    return tuple(out.get(f"shapes.{key}.{i}") for i in range(int(marker[1])))


def value(out: dict, key: str) -> np.ndarray:
    """Output `key` with its recorded shape."""
    return np.reshape(out[key], shape(out, key))


def tclose(out: dict, key: str, want, rtol: float = RTOL, atol: float = ATOL) -> None:
    """The old tests' `close`: a tensor of the expected shape, values within the tolerance."""
    want = np.asarray(want, dtype=np.float64)
    equal(shape(out, key), want.shape, what=f"{key} shape")
    close(value(out, key), want, rtol=rtol, atol=atol, what=key)


# ---------------------------------------------------------------- poincare_distance


@check("distance_matches_reference*")
def distance_reference(out, ref):
    tclose(out, "out", value(ref, "out"))


@check("distance_hand_values")
def distance_hand_values(out, ref):
    # c = 1, x = (0.5, 0): d(0, x) = 2 artanh(0.5) = ln((1 + 0.5) / (1 - 0.5)) = ln 3.
    tclose(out, "o_x", 1.0986122886681098)
    # c = 1, x = (0.5, 0), y = (0, 0.5): with the equivalent closed form
    # cosh d = 1 + 2 |x - y|^2 / ((1 - |x|^2)(1 - |y|^2)) = 1 + 2 * 0.5 / 0.5625 = 25/9,
    # d = arcosh(25/9) = ln((25 + 4 sqrt(34)) / 9) = 1.6806997724280035.
    tclose(out, "x_y", 1.6806997724280035)
    # c = 1/4 (radius 2), x = (1, 0): d(0, x) = (2 / sqrt(1/4)) artanh(sqrt(1/4) * 1) = 4 artanh(0.5) = 2 ln 3.
    tclose(out, "o_2x_c0.25", 2.1972245773362196)


@check("distance_along_a_diameter")
def diameter(out, ref):
    # Points on a line through the origin: d(s e, t e) = (2/sqrt(c)) |artanh(sqrt(c) s) - artanh(sqrt(c) t)|
    # (the right-hand side computed from the inputs by the reference run).
    for c in (1.0, 0.3, 4.0):
        tclose(out, f"c{c}", value(ref, f"expected_c{c}"))


@check("distance_metric_properties")
def metric(out, ref):
    d_uv = value(out, "d_uv")
    tclose(out, "d_vu", d_uv)                                   # symmetric
    expect(bool(np.all(d_uv > 0)), "a distance between different points is not positive")
    tclose(out, "d_uu", np.zeros(12), atol=1e-7)                # d(u, u) = 0
    tclose(out, "d_rotated", d_uv)                              # rotations are isometries
    expect(bool(np.all(value(out, "d_uw") <= d_uv + value(out, "d_vw") + 1e-12)), "triangle inequality violated")


@check("distance_grows_towards_the_boundary")
def boundary(out, ref):
    # A fixed Euclidean step costs more hyperbolic length the closer it is to the boundary.
    d = value(out, "d")
    expect(bool(np.all(d[1:] > d[:-1])), f"distances of equal Euclidean steps do not grow outwards: {d.tolist()}")
    close(d[0], 2 * math.atanh(0.1), rtol=RTOL, atol=ATOL, what="d(0, 0.1 e)")


@check("distance_euclidean_limit")
def distance_flat_limit(out, ref):
    # As c -> 0 the ball becomes flat: d_c(u, v) -> 2 |u - v|.
    tclose(out, "d", value(ref, "flat"), rtol=1e-6, atol=1e-8)


@check("distance_broadcast_shape")
def broadcast(out, ref):
    equal(shape(out, "out"), (3, 5), what="broadcast shape")
    tclose(out, "out_2_4", value(out, "single"))


# ---------------------------------------------------------------- hit_loss


@check("loss_matches_reference*")
def loss_reference(out, ref):
    equal(out["is_hit_output"], True, what="returns a HiTLossOutput")
    for name in FIELDS:
        tclose(out, name, value(ref, name))
    for name in ("grad_child", "grad_parent", "grad_negative"):
        tclose(out, name, value(ref, name), rtol=1e-6, atol=1e-8)


@check("loss_hand_value_one_dimension")
def hand_one_dimension(out, ref):
    # d = 1 so the default curvature is c = 1/d = 1 (the ball is the interval (-1, 1)).
    # child 0.5, parent 0.2, negative -0.5; on a line d(s, t) = 2 |artanh s - artanh t| and
    # 2 artanh(x) = ln((1 + x) / (1 - x)):  |child| = ln 3, |parent| = ln 1.5.
    # d(child, parent) = ln 3 - ln 1.5 = ln 2, d(child, negative) = 2 ln 3.
    # cluster = max(ln 2 - 2 ln 3 + 5, 0) = 3.495922603223726
    # centripetal (beta = 1) = max(ln 1.5 - ln 3 + 1, 0) = 1 - ln 2 = 0.3068528194400547
    # total = 6 - 2 ln 3 = 3.8027754226637804
    tclose(out, "cluster", 3.495922603223726)
    tclose(out, "centripetal", 0.3068528194400547)
    tclose(out, "loss", 3.8027754226637804)


@check("loss_hand_value_default_curvature")
def hand_default_curvature(out, ref):
    # d = 4, default c = 1/4 (ball of radius 2 around the hypercube (-1, 1)^4); all points on the
    # first axis: child 1.0, parent 0.4, negative -1.0, and d(s, t) = 4 |artanh(s/2) - artanh(t/2)|.
    # |child| = 4 artanh(0.5) = 2 ln 3, |parent| = 4 artanh(0.2) = 2 ln 1.5, |negative| = 2 ln 3.
    # d(child, parent) = 2 ln 2, d(child, negative) = 4 ln 3.
    # cluster (alpha = 5) = 5 + 2 ln 2 - 4 ln 3 = 1.9918452064474517
    # centripetal (beta = 2) = 2 + 2 ln 1.5 - 2 ln 3 = 2 - 2 ln 2 = 0.6137056388801094
    # weights (1, 1): total = 7 - 4 ln 3 = 2.605550845327561; batch of one, so every reduction agrees.
    for red in ("mean", "sum"):
        tclose(out, f"{red}.cluster", 1.9918452064474517)
        tclose(out, f"{red}.centripetal", 0.6137056388801094)
        tclose(out, f"{red}.loss", 2.605550845327561)
    tclose(out, "none.loss", [2.605550845327561])


@check("default_curvature_is_one_over_dim")
def default_curvature(out, ref):
    for d in (3, 9):
        for name in FIELDS:
            tclose(out, f"d{d}.default.{name}", value(out, f"d{d}.explicit.{name}"))


@check("reductions_are_consistent")
def reductions(out, ref):
    equal((shape(out, "none.loss"), shape(out, "mean.loss"), shape(out, "sum.loss")), ((7,), (), ()),
          what="loss shapes for none, mean, sum")
    for name in FIELDS:
        none = value(out, f"none.{name}")
        tclose(out, f"mean.{name}", none.mean())
        tclose(out, f"sum.{name}", none.sum())
    tclose(out, "none.loss", 0.6 * value(out, "none.cluster") + 1.7 * value(out, "none.centripetal"))


@check("invariant_to_rotations_and_permutations")
def invariances(out, ref):
    loss = value(out, "loss")
    tclose(out, "rotated", loss)
    perm = np.asarray(ref["perm"], dtype=int)
    tclose(out, "permuted", loss[perm])


@check("euclidean_limit_is_a_plain_triplet_loss")
def loss_flat_limit(out, ref):
    # With c -> 0 both distances and norms become 2 |.|: the loss becomes a Euclidean triplet loss
    # plus a margin loss on the (doubled) Euclidean norms (computed from the inputs by the reference run).
    tclose(out, "cluster", value(ref, "flat_cluster"), rtol=1e-6, atol=1e-8)
    tclose(out, "centripetal", value(ref, "flat_centripetal"), rtol=1e-6, atol=1e-8)


@check("satisfied_triplets_give_zero_loss_and_zero_gradient")
def satisfied(out, ref):
    # Child far out on the first axis, parent nearer the origin on the same axis, negative opposite.
    tclose(out, "loss", 0.0)
    for name in ("grad_child", "grad_parent", "grad_negative"):
        expect(bool(np.all(np.asarray(out[name]) == 0)), f"{name} is not zero for a satisfied triplet")
    # the same triplet with the roles of parent and child swapped violates the centripetal margin
    expect(float(np.asarray(out["swapped_centripetal"]).reshape(-1)[0]) > 0.1, "swapped triplet: centripetal <= 0.1")


@check("centripetal_gradient_pulls_parent_towards_origin")
def centripetal_gradient(out, ref):
    # gradient descent moves the parent inwards and the child outwards (radially)
    p, x = value(ref, "parent"), value(ref, "child")
    expect(bool(np.all((value(out, "grad_parent") * p).sum(-1) > 0)), "the parent is not pulled towards the origin")
    expect(bool(np.all((value(out, "grad_child") * x).sum(-1) < 0)), "the child is not pushed outwards")
