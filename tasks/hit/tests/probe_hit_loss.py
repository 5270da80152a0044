"""Probe for hit/1: `poincare_distance` and `hit_loss` in hit/losses.py. Runs in the sandbox; emits outputs
only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_hit_loss.py add hand-checked values and the geometry's properties."""
import math
from pathlib import Path

import torch
from hit.losses import HiTLossOutput, hit_loss, poincare_distance
from lmrbench_probe import case

FIX = torch.load(Path(__file__).parent / "fixtures" / "hit_cases.pt", weights_only=True)
DT = torch.float64
TOL = dict(rtol=1e-7, atol=1e-9)  # the old tests' default tolerance
GRAD_TOL = {"rtol": 1e-6, "atol": 1e-8}
FIELDS = ("loss", "cluster", "centripetal")


def shaped(out: dict, flags: tuple[str, ...] = ()) -> dict:
    """`out` plus each tensor's shape under `shapes.<key>`: the old tests asserted every shape, and the probe
    runner records a 0-d tensor as shape [1], so a scalar and a one-element vector would look alike.

    An output that should be a tensor but is not (any key but `flags`) is left out, recorded under
    `not_a_tensor.<key>`: it then fails as a missing output (the harness's comparison of an array with a
    list or None raises instead of failing)."""
    kept = {k: v for k, v in out.items() if isinstance(v, torch.Tensor) or k in flags}
    wrong = {f"not_a_tensor.{k}": type(v).__name__ for k, v in out.items() if k not in kept}
    return {**kept, **wrong, "shapes": {k: list(v.shape) for k, v in kept.items() if isinstance(v, torch.Tensor)}}


def fields(out, prefix: str = "") -> dict:
    return {f"{prefix}{name}": getattr(out, name) for name in FIELDS}


def grads_or_zeros(grads, inputs) -> list:
    """Gradients, with None (an input the loss does not use) as zeros, as the old tests read them."""
    return [torch.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def _points(g, n, d, c, frac=0.9):
    x = torch.randn(n, d, generator=g, dtype=DT)
    x = x / x.norm(dim=-1, keepdim=True)
    return x * torch.rand(n, 1, generator=g, dtype=DT) * frac / math.sqrt(c)


def _triplets(seed, B=6, d=5):
    g = torch.Generator().manual_seed(seed)
    return [torch.tanh(1.3 * torch.randn(B, d, generator=g, dtype=DT)) for _ in range(3)]


# ---------------------------------------------------------------- poincare_distance


@case(params=range(len(FIX["distance"])), **TOL)
def distance_matches_reference(i):
    c = FIX["distance"][i]
    return shaped({"out": poincare_distance(c["u"], c["v"], c["c"])})


@case(**TOL)
def distance_hand_values():
    x = torch.tensor([0.5, 0.0], dtype=DT)
    y = torch.tensor([0.0, 0.5], dtype=DT)
    o = torch.zeros(2, dtype=DT)
    return shaped({"o_x": poincare_distance(o, x, 1.0), "x_y": poincare_distance(x, y, 1.0),
                   "o_2x_c0.25": poincare_distance(o, 2 * x, 0.25)})


@case(**TOL)
def distance_along_a_diameter():
    g = torch.Generator().manual_seed(0)
    out = {}
    for c in (1.0, 0.3, 4.0):
        e = torch.randn(5, generator=g, dtype=DT)
        e = e / e.norm()
        s = (torch.rand(9, generator=g, dtype=DT) * 2 - 1) * 0.95 / math.sqrt(c)
        t = (torch.rand(9, generator=g, dtype=DT) * 2 - 1) * 0.95 / math.sqrt(c)
        out[f"c{c}"] = poincare_distance(s[:, None] * e, t[:, None] * e, c)
        out[f"expected_c{c}"] = 2 / math.sqrt(c) * (torch.atanh(math.sqrt(c) * s) - torch.atanh(math.sqrt(c) * t)).abs()
    return shaped(out)


@case(**TOL, outputs={"d_uu": {"atol": 1e-7}})  # d(u, u) = 0 within the old test's 1e-7
def distance_metric_properties():
    g = torch.Generator().manual_seed(1)
    c = 0.6
    u, v = _points(g, 12, 6, c), _points(g, 12, 6, c)
    out = {"d_uv": poincare_distance(u, v, c), "d_vu": poincare_distance(v, u, c), "d_uu": poincare_distance(u, u, c)}
    q, _ = torch.linalg.qr(torch.randn(6, 6, generator=g, dtype=DT))
    out["d_rotated"] = poincare_distance(u @ q.T, v @ q.T, c)
    w = _points(g, 12, 6, c)
    out["d_uw"], out["d_vw"] = poincare_distance(u, w, c), poincare_distance(v, w, c)
    return shaped(out)


@case(**TOL)
def distance_grows_towards_the_boundary():
    e = torch.tensor([1.0, 0.0, 0.0], dtype=DT)
    starts = torch.tensor([0.0, 0.3, 0.6, 0.85], dtype=DT)
    return shaped({"d": poincare_distance(starts[:, None] * e, (starts + 0.1)[:, None] * e, 1.0)})


# The old test compared with the flat limit 2 |u - v| (rtol 1e-6), not with the reference: at c = 1e-10
# correct formulas lose different digits, so only the check looks at it.
@case(compare="none")
def distance_euclidean_limit():
    g = torch.Generator().manual_seed(2)
    u, v = torch.randn(10, 4, generator=g, dtype=DT), torch.randn(10, 4, generator=g, dtype=DT)
    return shaped({"d": poincare_distance(u, v, 1e-10), "flat": 2 * (u - v).norm(dim=-1)})


@case(**TOL)
def distance_broadcast_shape():
    g = torch.Generator().manual_seed(3)
    u = _points(g, 3, 4, 1.0).reshape(3, 1, 4)
    v = _points(g, 5, 4, 1.0).reshape(1, 5, 4)
    out = poincare_distance(u, v, 1.0)
    return shaped({"out": out, "out_2_4": out[2, 4], "single": poincare_distance(u[2, 0], v[0, 4], 1.0)})


# ---------------------------------------------------------------- hit_loss


@case(params=range(len(FIX["loss"])), **TOL, outputs={"grad_*": GRAD_TOL})
def loss_matches_reference(i):
    c = FIX["loss"][i]
    inputs = [c[k].clone().requires_grad_(True) for k in ("child", "parent", "negative")]
    out = hit_loss(*inputs, **c["kwargs"])
    result = {"is_hit_output": isinstance(out, HiTLossOutput), **fields(out)}
    grads = grads_or_zeros(torch.autograd.grad(out.loss.sum(), inputs, allow_unused=True), inputs)
    result.update(zip(("grad_child", "grad_parent", "grad_negative"), grads))
    return shaped(result, flags=("is_hit_output",))


@case(**TOL)
def loss_hand_value_one_dimension():
    t = lambda x: torch.tensor([[x]], dtype=DT)  # noqa: E731
    return shaped(fields(hit_loss(t(0.5), t(0.2), t(-0.5), cluster_margin=5.0, centri_margin=1.0)))


@case(**TOL)
def loss_hand_value_default_curvature():
    def pt(x):
        return torch.tensor([[x, 0.0, 0.0, 0.0]], dtype=DT)

    out = {}
    for red in ("mean", "sum", "none"):
        out.update(fields(hit_loss(pt(1.0), pt(0.4), pt(-1.0), cluster_margin=5.0, centri_margin=2.0, reduction=red),
                          f"{red}."))
    return shaped(out)


@case(**TOL)
def default_curvature_is_one_over_dim():
    out = {}
    for d in (3, 9):
        x, p, n = _triplets(10 + d, d=d)
        kw = dict(cluster_margin=2.0, centri_margin=0.5, reduction="none")
        out.update(fields(hit_loss(x, p, n, **kw), f"d{d}.default."))
        out.update(fields(hit_loss(x, p, n, curvature=1.0 / d, **kw), f"d{d}.explicit."))
    return shaped(out)


@case(**TOL)
def reductions_are_consistent():
    x, p, n = _triplets(4, B=7)
    kw = dict(curvature=0.15, cluster_margin=3.0, centri_margin=0.7, cluster_weight=0.6, centri_weight=1.7)
    out = {}
    for red in ("none", "mean", "sum"):
        out.update(fields(hit_loss(x, p, n, reduction=red, **kw), f"{red}."))
    return shaped(out)


@case(**TOL)
def invariant_to_rotations_and_permutations():
    x, p, n = _triplets(5, B=8, d=5)
    g = torch.Generator().manual_seed(6)
    q, _ = torch.linalg.qr(torch.randn(5, 5, generator=g, dtype=DT))
    kw = dict(curvature=0.2, cluster_margin=2.5, centri_margin=0.4, reduction="none")
    perm = torch.randperm(8, generator=g)
    return shaped({"loss": hit_loss(x, p, n, **kw).loss, "rotated": hit_loss(x @ q.T, p @ q.T, n @ q.T, **kw).loss,
                   "perm": perm, "permuted": hit_loss(x[perm], p[perm], n[perm], **kw).loss})


# Like distance_euclidean_limit: compared with the flat-limit losses by the check only (rtol 1e-6).
@case(compare="none")
def euclidean_limit_is_a_plain_triplet_loss():
    x, p, n = _triplets(7, B=9, d=4)
    out = hit_loss(x, p, n, curvature=1e-10, cluster_margin=0.8, centri_margin=0.3, reduction="none")
    return shaped({"cluster": out.cluster, "centripetal": out.centripetal,
                   "flat_cluster": torch.relu(2 * (x - p).norm(dim=-1) - 2 * (x - n).norm(dim=-1) + 0.8),
                   "flat_centripetal": torch.relu(2 * p.norm(dim=-1) - 2 * x.norm(dim=-1) + 0.3)})


@case(**TOL)
def satisfied_triplets_give_zero_loss_and_zero_gradient():
    x = torch.tensor([[0.9, 0.0, 0.0]], dtype=DT, requires_grad=True)
    p = torch.tensor([[0.5, 0.0, 0.0]], dtype=DT, requires_grad=True)
    n = torch.tensor([[-0.9, 0.0, 0.0]], dtype=DT, requires_grad=True)
    out = hit_loss(x, p, n, curvature=1.0, cluster_margin=0.5, centri_margin=0.1)
    grads = grads_or_zeros(torch.autograd.grad(out.loss, (x, p, n), allow_unused=True), (x, p, n))
    # the same triplet with the roles of parent and child swapped violates the centripetal margin
    swapped = hit_loss(p, x, n, curvature=1.0, cluster_margin=0.5, centri_margin=0.1)
    return shaped({"loss": out.loss, "grad_child": grads[0], "grad_parent": grads[1], "grad_negative": grads[2],
                   "swapped_centripetal": swapped.centripetal})


@case(**TOL, outputs={"grad_*": GRAD_TOL})
def centripetal_gradient_pulls_parent_towards_origin():
    x, p, n = (t.clone().requires_grad_(True) for t in _triplets(8, B=5, d=6))
    out = hit_loss(x, p, n, curvature=1.0 / 6, cluster_margin=1.0, centri_margin=10.0,
                   cluster_weight=0.0, centri_weight=1.0)
    gp, gx = torch.autograd.grad(out.loss, (p, x))
    return shaped({"grad_parent": gp, "grad_child": gx, "parent": p.detach(), "child": x.detach()})
