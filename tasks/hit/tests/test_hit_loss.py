"""Hidden tests for hit/1: `poincare_distance` and `hit_loss` in hit/losses.py."""
import math
from pathlib import Path

import pytest
import torch

from hit.losses import HiTLossOutput, hit_loss, poincare_distance

FIX = torch.load(Path(__file__).parent / "fixtures" / "hit_cases.pt", weights_only=True)
DT = torch.float64
RTOL, ATOL = 1e-7, 1e-9


def close(actual, expected, rtol=RTOL, atol=ATOL):
    assert isinstance(actual, torch.Tensor)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    torch.testing.assert_close(actual.to(DT), expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- poincare_distance


@pytest.mark.parametrize("i", range(len(FIX["distance"])))
def test_distance_matches_reference(i):
    case = FIX["distance"][i]
    close(poincare_distance(case["u"], case["v"], case["c"]), case["out"])


def test_distance_hand_values():
    # c = 1, x = (0.5, 0): d(0, x) = 2 artanh(0.5) = ln((1 + 0.5) / (1 - 0.5)) = ln 3.
    x = torch.tensor([0.5, 0.0], dtype=DT)
    y = torch.tensor([0.0, 0.5], dtype=DT)
    o = torch.zeros(2, dtype=DT)
    close(poincare_distance(o, x, 1.0), torch.tensor(1.0986122886681098, dtype=DT))
    # c = 1, x = (0.5, 0), y = (0, 0.5): with the equivalent closed form
    # cosh d = 1 + 2 |x - y|^2 / ((1 - |x|^2)(1 - |y|^2)) = 1 + 2 * 0.5 / 0.5625 = 25/9,
    # d = arcosh(25/9) = ln((25 + 4 sqrt(34)) / 9) = 1.6806997724280035.
    close(poincare_distance(x, y, 1.0), torch.tensor(1.6806997724280035, dtype=DT))
    # c = 1/4 (radius 2), x = (1, 0): d(0, x) = (2 / sqrt(1/4)) artanh(sqrt(1/4) * 1) = 4 artanh(0.5) = 2 ln 3.
    close(poincare_distance(o, 2 * x, 0.25), torch.tensor(2.1972245773362196, dtype=DT))


def test_distance_along_a_diameter():
    # Points on a line through the origin: d(s e, t e) = (2/sqrt(c)) |artanh(sqrt(c) s) - artanh(sqrt(c) t)|.
    g = torch.Generator().manual_seed(0)
    for c in (1.0, 0.3, 4.0):
        e = torch.randn(5, generator=g, dtype=DT)
        e = e / e.norm()
        s = (torch.rand(9, generator=g, dtype=DT) * 2 - 1) * 0.95 / math.sqrt(c)
        t = (torch.rand(9, generator=g, dtype=DT) * 2 - 1) * 0.95 / math.sqrt(c)
        expected = 2 / math.sqrt(c) * (torch.atanh(math.sqrt(c) * s) - torch.atanh(math.sqrt(c) * t)).abs()
        close(poincare_distance(s[:, None] * e, t[:, None] * e, c), expected)


def _points(g, n, d, c, frac=0.9):
    x = torch.randn(n, d, generator=g, dtype=DT)
    x = x / x.norm(dim=-1, keepdim=True)
    return x * torch.rand(n, 1, generator=g, dtype=DT) * frac / math.sqrt(c)


def test_distance_metric_properties():
    g = torch.Generator().manual_seed(1)
    c = 0.6
    u, v = _points(g, 12, 6, c), _points(g, 12, 6, c)
    d_uv = poincare_distance(u, v, c)
    close(poincare_distance(v, u, c), d_uv)                              # symmetric
    assert bool((d_uv > 0).all())
    close(poincare_distance(u, u, c), torch.zeros(12, dtype=DT), atol=1e-7)   # d(u, u) = 0
    q, _ = torch.linalg.qr(torch.randn(6, 6, generator=g, dtype=DT))
    close(poincare_distance(u @ q.T, v @ q.T, c), d_uv)                   # rotations are isometries
    w = _points(g, 12, 6, c)
    assert bool((poincare_distance(u, w, c) <= d_uv + poincare_distance(v, w, c) + 1e-12).all())


def test_distance_grows_towards_the_boundary():
    # A fixed Euclidean step costs more hyperbolic length the closer it is to the boundary.
    e = torch.tensor([1.0, 0.0, 0.0], dtype=DT)
    starts = torch.tensor([0.0, 0.3, 0.6, 0.85], dtype=DT)
    d = poincare_distance(starts[:, None] * e, (starts + 0.1)[:, None] * e, 1.0)
    assert bool((d[1:] > d[:-1]).all())
    close(d[0], torch.tensor(2 * math.atanh(0.1), dtype=DT))


def test_distance_euclidean_limit():
    # As c -> 0 the ball becomes flat: d_c(u, v) -> 2 |u - v|.
    g = torch.Generator().manual_seed(2)
    u, v = torch.randn(10, 4, generator=g, dtype=DT), torch.randn(10, 4, generator=g, dtype=DT)
    close(poincare_distance(u, v, 1e-10), 2 * (u - v).norm(dim=-1), rtol=1e-6, atol=1e-8)


def test_distance_broadcast_shape():
    g = torch.Generator().manual_seed(3)
    u = _points(g, 3, 4, 1.0).reshape(3, 1, 4)
    v = _points(g, 5, 4, 1.0).reshape(1, 5, 4)
    out = poincare_distance(u, v, 1.0)
    assert out.shape == (3, 5)
    close(out[2, 4], poincare_distance(u[2, 0], v[0, 4], 1.0))


# ---------------------------------------------------------------- hit_loss


@pytest.mark.parametrize("i", range(len(FIX["loss"])))
def test_loss_matches_reference(i):
    case = FIX["loss"][i]
    inputs = [case[k].clone().requires_grad_(True) for k in ("child", "parent", "negative")]
    out = hit_loss(*inputs, **case["kwargs"])
    assert isinstance(out, HiTLossOutput)
    close(out.loss, case["loss"])
    close(out.cluster, case["cluster"])
    close(out.centripetal, case["centripetal"])
    grads = torch.autograd.grad(out.loss.sum(), inputs, allow_unused=True)
    for g, name in zip(grads, ("grad_child", "grad_parent", "grad_negative")):
        g = torch.zeros_like(case[name]) if g is None else g
        close(g, case[name], rtol=1e-6, atol=1e-8)


def test_loss_hand_value_one_dimension():
    # d = 1 so the default curvature is c = 1/d = 1 (the ball is the interval (-1, 1)).
    # child 0.5, parent 0.2, negative -0.5; on a line d(s, t) = 2 |artanh s - artanh t| and
    # 2 artanh(x) = ln((1 + x) / (1 - x)):  |child| = ln 3, |parent| = ln 1.5.
    # d(child, parent) = ln 3 - ln 1.5 = ln 2, d(child, negative) = 2 ln 3.
    # cluster = max(ln 2 - 2 ln 3 + 5, 0) = 3.495922603223726
    # centripetal (beta = 1) = max(ln 1.5 - ln 3 + 1, 0) = 1 - ln 2 = 0.3068528194400547
    # total = 6 - 2 ln 3 = 3.8027754226637804
    t = lambda x: torch.tensor([[x]], dtype=DT)
    out = hit_loss(t(0.5), t(0.2), t(-0.5), cluster_margin=5.0, centri_margin=1.0)
    close(out.cluster, torch.tensor(3.495922603223726, dtype=DT))
    close(out.centripetal, torch.tensor(0.3068528194400547, dtype=DT))
    close(out.loss, torch.tensor(3.8027754226637804, dtype=DT))


def test_loss_hand_value_default_curvature():
    # d = 4, default c = 1/4 (ball of radius 2 around the hypercube (-1, 1)^4); all points on the
    # first axis: child 1.0, parent 0.4, negative -1.0, and d(s, t) = 4 |artanh(s/2) - artanh(t/2)|.
    # |child| = 4 artanh(0.5) = 2 ln 3, |parent| = 4 artanh(0.2) = 2 ln 1.5, |negative| = 2 ln 3.
    # d(child, parent) = 2 ln 2, d(child, negative) = 4 ln 3.
    # cluster (alpha = 5) = 5 + 2 ln 2 - 4 ln 3 = 1.9918452064474517
    # centripetal (beta = 2) = 2 + 2 ln 1.5 - 2 ln 3 = 2 - 2 ln 2 = 0.6137056388801094
    # weights (1, 1): total = 7 - 4 ln 3 = 2.605550845327561; batch of one, so every reduction agrees.
    def pt(x):
        return torch.tensor([[x, 0.0, 0.0, 0.0]], dtype=DT)

    for red in ("mean", "sum"):
        out = hit_loss(pt(1.0), pt(0.4), pt(-1.0), cluster_margin=5.0, centri_margin=2.0, reduction=red)
        close(out.cluster, torch.tensor(1.9918452064474517, dtype=DT))
        close(out.centripetal, torch.tensor(0.6137056388801094, dtype=DT))
        close(out.loss, torch.tensor(2.605550845327561, dtype=DT))
    out = hit_loss(pt(1.0), pt(0.4), pt(-1.0), cluster_margin=5.0, centri_margin=2.0, reduction="none")
    close(out.loss, torch.tensor([2.605550845327561], dtype=DT))


def _triplets(seed, B=6, d=5):
    g = torch.Generator().manual_seed(seed)
    return [torch.tanh(1.3 * torch.randn(B, d, generator=g, dtype=DT)) for _ in range(3)]


def test_default_curvature_is_one_over_dim():
    for d in (3, 9):
        x, p, n = _triplets(10 + d, d=d)
        kw = dict(cluster_margin=2.0, centri_margin=0.5, reduction="none")
        default = hit_loss(x, p, n, **kw)
        explicit = hit_loss(x, p, n, curvature=1.0 / d, **kw)
        close(default.loss, explicit.loss)
        close(default.cluster, explicit.cluster)
        close(default.centripetal, explicit.centripetal)


def test_reductions_are_consistent():
    x, p, n = _triplets(4, B=7)
    kw = dict(curvature=0.15, cluster_margin=3.0, centri_margin=0.7, cluster_weight=0.6, centri_weight=1.7)
    none = hit_loss(x, p, n, reduction="none", **kw)
    mean = hit_loss(x, p, n, reduction="mean", **kw)
    total = hit_loss(x, p, n, reduction="sum", **kw)
    assert none.loss.shape == (7,) and mean.loss.shape == () and total.loss.shape == ()
    for field in ("loss", "cluster", "centripetal"):
        close(getattr(mean, field), getattr(none, field).mean())
        close(getattr(total, field), getattr(none, field).sum())
    close(none.loss, 0.6 * none.cluster + 1.7 * none.centripetal)


def test_invariant_to_rotations_and_permutations():
    x, p, n = _triplets(5, B=8, d=5)
    g = torch.Generator().manual_seed(6)
    q, _ = torch.linalg.qr(torch.randn(5, 5, generator=g, dtype=DT))
    kw = dict(curvature=0.2, cluster_margin=2.5, centri_margin=0.4, reduction="none")
    ref = hit_loss(x, p, n, **kw)
    rot = hit_loss(x @ q.T, p @ q.T, n @ q.T, **kw)
    close(rot.loss, ref.loss)
    perm = torch.randperm(8, generator=g)
    close(hit_loss(x[perm], p[perm], n[perm], **kw).loss, ref.loss[perm])


def test_euclidean_limit_is_a_plain_triplet_loss():
    # With c -> 0 both distances and norms become 2 |.|: the loss becomes a Euclidean triplet loss
    # plus a margin loss on the (doubled) Euclidean norms.
    x, p, n = _triplets(7, B=9, d=4)
    out = hit_loss(x, p, n, curvature=1e-10, cluster_margin=0.8, centri_margin=0.3, reduction="none")
    cluster = torch.relu(2 * (x - p).norm(dim=-1) - 2 * (x - n).norm(dim=-1) + 0.8)
    centri = torch.relu(2 * p.norm(dim=-1) - 2 * x.norm(dim=-1) + 0.3)
    close(out.cluster, cluster, rtol=1e-6, atol=1e-8)
    close(out.centripetal, centri, rtol=1e-6, atol=1e-8)


def test_satisfied_triplets_give_zero_loss_and_zero_gradient():
    # Child far out on the first axis, parent nearer the origin on the same axis, negative opposite.
    x = torch.tensor([[0.9, 0.0, 0.0]], dtype=DT, requires_grad=True)
    p = torch.tensor([[0.5, 0.0, 0.0]], dtype=DT, requires_grad=True)
    n = torch.tensor([[-0.9, 0.0, 0.0]], dtype=DT, requires_grad=True)
    out = hit_loss(x, p, n, curvature=1.0, cluster_margin=0.5, centri_margin=0.1)
    close(out.loss, torch.tensor(0.0, dtype=DT))
    grads = torch.autograd.grad(out.loss, (x, p, n), allow_unused=True)
    for g in grads:
        assert g is None or bool((g == 0).all())
    # the same triplet with the roles of parent and child swapped violates the centripetal margin
    swapped = hit_loss(p, x, n, curvature=1.0, cluster_margin=0.5, centri_margin=0.1)
    assert swapped.centripetal.item() > 0.1


def test_centripetal_gradient_pulls_parent_towards_origin():
    x, p, n = (t.clone().requires_grad_(True) for t in _triplets(8, B=5, d=6))
    out = hit_loss(x, p, n, curvature=1.0 / 6, cluster_margin=1.0, centri_margin=10.0,
                   cluster_weight=0.0, centri_weight=1.0)
    gp, gx = torch.autograd.grad(out.loss, (p, x))
    # gradient descent moves the parent inwards and the child outwards (radially)
    assert bool(((gp * p).sum(-1) > 0).all())
    assert bool(((gx * x).sum(-1) < 0).all())
