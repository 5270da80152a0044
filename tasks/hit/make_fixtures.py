"""Write tests/fixtures for hit/1: the inputs and options of the differential cases.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference
``hit/losses.py`` in place (and on PYTHONPATH). Deterministic: running it twice writes the same data.
Inputs only: the reference's distances, losses and gradients are computed by the probe and stored outside
the sandbox, in tests/expected/.
"""
import sys
from pathlib import Path

import torch

DT = torch.float64


def ball_points(g, shape, d, c, max_frac):
    """Random points of the ball of radius 1/sqrt(c), at up to ``max_frac`` of the radius."""
    direction = torch.randn(*shape, d, generator=g, dtype=DT)
    direction = direction / direction.norm(dim=-1, keepdim=True)
    radius = torch.rand(*shape, 1, generator=g, dtype=DT) * max_frac / c ** 0.5
    return direction * radius


def distance_cases(g):
    specs = [
        # (shape of u, shape of v, d, c, max_frac)
        ((7,), (7,), 3, 1.0, 0.9),
        ((2, 5), (2, 5), 8, 0.25, 0.95),
        ((1,), (1,), 2, 2.0, 0.5),
        ((6,), (6,), 16, 1.0 / 16, 0.99),
        ((3, 1), (1, 5), 4, 0.7, 0.9),          # broadcasting
        ((5,), (5,), 1, 1.0, 0.97),             # one dimension
        ((4,), (4,), 32, 3.0, 0.2),             # small norms, high curvature
    ]
    cases = []
    for shape_u, shape_v, d, c, frac in specs:
        u = ball_points(g, shape_u, d, c, frac)
        v = ball_points(g, shape_v, d, c, frac)
        cases.append({"u": u, "v": v, "c": c})
    return cases


def loss_cases(g):
    specs = [
        # B, d, embeddings, curvature, cluster_margin, centri_margin, cluster_w, centri_w, reduction
        (8, 4, "tanh", None, 5.0, 0.5, 1.0, 1.0, "mean"),
        (16, 16, "tanh", None, 5.0, 0.1, 1.0, 1.0, "mean"),
        (1, 8, "tanh", None, 3.0, 0.5, 1.0, 1.0, "mean"),          # batch of one
        (5, 3, "ball", 1.0, 1.0, 0.2, 1.0, 1.0, "sum"),
        (6, 6, "ball", 0.5, 2.0, 1.0, 0.7, 1.3, "none"),
        (9, 12, "tanh", None, 0.0, 0.0, 1.0, 1.0, "mean"),         # zero margins
        (4, 2, "ball", 2.0, 0.5, 0.3, 2.0, 0.0, "mean"),           # centripetal switched off
        (7, 5, "ball", 0.2, 1.5, 0.4, 0.0, 3.0, "none"),           # clustering switched off
        (10, 8, "edge", 1.0 / 8, 5.0, 0.5, 1.0, 1.0, "mean"),      # close to the boundary
        (3, 32, "tanh", 1.0 / 32, 4.0, 0.5, 1.0, 0.5, "sum"),
    ]
    cases = []
    for B, d, kind, c, a, b, wa, wb, red in specs:
        cc = 1.0 / d if c is None else c
        if kind == "tanh":
            scale = 1.5
            child, parent, negative = (torch.tanh(scale * torch.randn(B, d, generator=g, dtype=DT)) for _ in range(3))
        elif kind == "ball":
            child, parent, negative = (ball_points(g, (B,), d, cc, 0.9) for _ in range(3))
        else:
            child, parent, negative = (ball_points(g, (B,), d, cc, 0.995) for _ in range(3))
        cases.append({
            "child": child, "parent": parent, "negative": negative,
            "kwargs": {"curvature": c, "cluster_margin": a, "centri_margin": b,
                       "cluster_weight": wa, "centri_weight": wb, "reduction": red},
        })
    return cases


def main(out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(20240117)
    torch.save({"distance": distance_cases(g), "loss": loss_cases(g)}, out / "hit_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
