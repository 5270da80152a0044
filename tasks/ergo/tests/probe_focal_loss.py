"""Probe for ergo/1: `focal_loss` in ergo/losses.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_focal_loss.py add hand-checked values and the loss's properties."""
import math
from pathlib import Path

import torch
import torch.nn.functional as F
from ergo.losses import focal_loss
from lmrbench_probe import case

CASES = torch.load(Path(__file__).parent / "fixtures" / "focal_cases.pt", weights_only=True)
DT = torch.float64
TOL = dict(rtol=1e-7, atol=1e-10)  # the old tests' default tolerance


def shaped(out: dict) -> dict:
    """`out` plus each tensor's shape under `shapes.<key>`: the old tests asserted every shape, and the probe
    runner records a 0-d tensor as shape [1], so a scalar loss and a one-element vector would look alike.

    An output that should be a tensor but is not is left out, recorded under `not_a_tensor.<key>`: it then
    fails as a missing output (the harness's comparison of an array with a list or None raises instead)."""
    kept = {k: v for k, v in out.items() if isinstance(v, torch.Tensor)}
    wrong = {f"not_a_tensor.{k}": type(v).__name__ for k, v in out.items() if k not in kept}
    return {**kept, **wrong, "shapes": {k: list(v.shape) for k, v in kept.items()}}


def case_id(i: int) -> str:
    c = CASES[i]
    kw = c["kwargs"]
    mask = "" if c["mask"] is None else "-masked"
    return f"{i}-{'x'.join(map(str, c['logits'].shape))}-{kw['reduction']}-a{kw['alpha']}-g{kw['gamma']}{mask}"


# --------------------------------------------------------------------------- differential


@case(params=range(len(CASES)), ids=[case_id(i) for i in range(len(CASES))], **TOL,
      outputs={"grad": {"rtol": 1e-6}})
def matches_reference(i):
    c = CASES[i]
    x = c["logits"].clone().requires_grad_(True)
    loss = focal_loss(x, c["targets"], mask=c["mask"], **c["kwargs"])
    out = {"loss": loss}
    if c["with_grad"]:
        (out["grad"],) = torch.autograd.grad(loss.sum(), x)
    return shaped(out)


# --------------------------------------------------------------------------- by hand (check file)


@case(**TOL)
def hand_values():
    logits = torch.tensor([0.0, 0.0, math.log(3.0), math.log(3.0)], dtype=DT)
    targets = torch.tensor([1, 0, 1, 0])
    return shaped({"none": focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="none"),
            "sum": focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="sum"),
            "mean": focal_loss(logits, targets, alpha=0.25, gamma=2.0),
            "defaults": focal_loss(logits, targets),
            "confidently_wrong": focal_loss(torch.tensor([-100.0], dtype=DT), torch.tensor([1]),
                                            reduction="none")})


# --------------------------------------------------------------------------- properties (check file)


@case(**TOL)
def gamma_zero_is_cross_entropy():
    g = torch.Generator().manual_seed(0)
    logits = 3 * torch.randn(4, 6, generator=g, dtype=DT)
    targets = (torch.rand(4, 6, generator=g) < 0.4).long()
    return shaped({"bce": F.binary_cross_entropy_with_logits(logits, targets.to(DT), reduction="none"),
            "weight": torch.where(targets.bool(), 0.8, 0.2).to(DT),
            "no_alpha": focal_loss(logits, targets, alpha=None, gamma=0.0, reduction="none"),
            "alpha": focal_loss(logits, targets, alpha=0.8, gamma=0.0, reduction="none"),
            "alpha_mean": focal_loss(logits, targets, alpha=0.8, gamma=0.0)})


@case(**TOL)
def focusing_down_weights_easy_examples():
    logits = torch.tensor([4.0, 1.0, -0.5, -3.0], dtype=DT)
    targets = torch.tensor([1, 1, 1, 1])
    out = {f"gamma{gamma}": focal_loss(logits, targets, alpha=None, gamma=gamma, reduction="none")
           for gamma in (0.0, 0.5, 1.0, 2.0, 5.0)}
    out["ratio"] = out["gamma2.0"] / out["gamma0.0"]
    return shaped(out)


@case(rtol=1e-6, atol=1e-6)
def extreme_logits_are_finite_and_accurate():
    logits = torch.tensor([100.0, -100.0, 100.0, -100.0, 40.0, -40.0])
    targets = torch.tensor([1, 0, 0, 1, 1, 0])
    out = {str(dtype)[6:]: focal_loss(logits.to(dtype), targets, alpha=0.25, gamma=2.0, reduction="none")
           for dtype in (torch.float32, DT)}
    x = logits.to(DT).requires_grad_(True)
    (out["grad"],) = torch.autograd.grad(focal_loss(x, targets, reduction="sum"), x)
    return shaped(out)


@case(**TOL)
def mask_excludes_padding():
    g = torch.Generator().manual_seed(1)
    logits = 2 * torch.randn(3, 5, generator=g, dtype=DT)
    targets = (torch.rand(3, 5, generator=g) < 0.5).long()
    mask = torch.rand(3, 5, generator=g) < 0.6
    garbage = torch.where(mask, logits, torch.full_like(logits, 1e4))  # large values at padding positions
    empty = torch.zeros(3, 5, dtype=torch.bool)
    one = empty.clone()
    one[1, 2] = True
    return shaped({"mask": mask,
            "full": focal_loss(logits, targets, reduction="none"),
            "none": focal_loss(logits, targets, reduction="none", mask=mask),
            "mean": focal_loss(logits, targets, reduction="mean", mask=mask),
            "sum": focal_loss(logits, targets, reduction="sum", mask=mask),
            "garbage_mean": focal_loss(garbage, targets, reduction="mean", mask=mask),
            "empty_mean": focal_loss(logits, targets, mask=empty),
            "one_mean": focal_loss(logits, targets, mask=one)})


@case(**TOL)
def target_dtypes_agree():
    g = torch.Generator().manual_seed(2)
    logits = 2 * torch.randn(10, generator=g, dtype=DT)
    t = torch.rand(10, generator=g) < 0.5
    return shaped({name: focal_loss(logits, targets, alpha=0.3, gamma=1.5, reduction="none")
                   for name, targets in (("long", t.long()), ("bool", t), ("float", t.to(DT)))})


@case(**TOL)
def gradient_direction_and_mask():
    g = torch.Generator().manual_seed(3)
    x = (2 * torch.randn(12, generator=g, dtype=DT)).requires_grad_(True)
    targets = torch.tensor([1, 0] * 6)
    mask = torch.ones(12, dtype=torch.bool)
    mask[[2, 7]] = False
    (grad,) = torch.autograd.grad(focal_loss(x, targets, alpha=0.4, gamma=2.0, mask=mask), x)
    return {"grad": grad, "targets": targets, "mask": mask}


@case
def unknown_reduction_raises():
    return {"loss": focal_loss(torch.zeros(3, dtype=DT), torch.ones(3), reduction="average")}
