"""Probe for dpo/1: `dpo_loss` in dpo/losses.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_dpo_loss.py add hand-checked values and the paper's properties."""
from __future__ import annotations

from pathlib import Path

import torch

from dpo.losses import dpo_loss
from lmrbench_probe import case

CASES = torch.load(Path(__file__).parent / "fixtures" / "dpo_loss_cases.pt", weights_only=True)
F64 = dict(rtol=1e-9, atol=1e-10)


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def call(c: dict, inputs=None):
    return dpo_loss(*(inputs if inputs is not None else c["inputs"]), beta=c["beta"],
                    label_smoothing=c["label_smoothing"], loss_type=c["loss_type"])


def case_id(i: int) -> str:
    c = CASES[i]
    return f"{i}-{c['loss_type']}-b{c['beta']}-ls{c['label_smoothing']}-n{c['inputs'][0].numel()}-{str(c['inputs'][0].dtype)[6:]}"


def random_pairs(batch: int = 11, seed: int = 1):
    g = torch.Generator().manual_seed(seed)
    ref = -(1 + 40 * torch.rand(2, batch, generator=g, dtype=torch.float64))
    pol = ref + 3 * torch.randn(2, batch, generator=g, dtype=torch.float64)
    return pol[0], pol[1], ref[0], ref[1]


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(CASES)), ids=[case_id(i) for i in range(len(CASES))], rtol=1e-9, atol=1e-10,
      outputs={"f32.*": dict(rtol=1e-4, atol=1e-4)})
def matches_reference(i):
    c = CASES[i]
    pol_c, pol_r, ref_c, ref_r = (x.clone() for x in c["inputs"])
    pol_c.requires_grad_(True)
    pol_r.requires_grad_(True)
    losses, chosen, rejected = call(c, (pol_c, pol_r, ref_c, ref_r))
    grad_c, grad_r = torch.autograd.grad(losses.sum(), (pol_c, pol_r))
    prefix = "f32." if c["inputs"][0].dtype == torch.float32 else ""
    return {f"{prefix}losses": losses, f"{prefix}chosen_rewards": chosen, f"{prefix}rejected_rewards": rejected,
            f"{prefix}grad_chosen": grad_c, f"{prefix}grad_rejected": grad_r}


# ---------------------------------------------------------------- values checked by hand (check file)


@case(rtol=1e-12, atol=1e-12)
def hand_values():
    args = (t(-1.0), t(-3.0), t(-2.0), t(-2.0))
    losses, rc, rr = dpo_loss(*args, beta=0.5)
    return {
        "dpo": losses, "chosen": rc, "rejected": rr,
        "conservative": dpo_loss(*args, beta=0.5, label_smoothing=0.25)[0],
        "ipo_b0.5": dpo_loss(*args, beta=0.5, loss_type="ipo")[0],
        "ipo_b0.25": dpo_loss(*args, beta=0.25, loss_type="ipo")[0],
        "ipo_b1": dpo_loss(*args, beta=1.0, loss_type="ipo")[0],
    }


@case(rtol=1e-12, atol=1e-12)
def policy_equal_to_reference():
    g = torch.Generator().manual_seed(0)
    ref_c, ref_r = -10 * torch.rand(2, 7, generator=g, dtype=torch.float64)
    out = {}
    for beta, eps in ((0.1, 0.0), (3.0, 0.3)):
        losses, rc, rr = dpo_loss(ref_c.clone(), ref_r.clone(), ref_c, ref_r, beta=beta, label_smoothing=eps)
        out[f"b{beta}.losses"], out[f"b{beta}.chosen"], out[f"b{beta}.rejected"] = losses, rc, rr
    out["ipo"] = dpo_loss(ref_c.clone(), ref_r.clone(), ref_c, ref_r, beta=0.1, loss_type="ipo")[0]
    return out


@case(rtol=1e-12, atol=1e-12)
def extreme_margins():
    args = (t(-1.0, -2001.0), t(-2001.0, -1.0), t(-1001.0, -1001.0), t(-1001.0, -1001.0))
    pc = args[0].clone().requires_grad_(True)
    losses, _, _ = dpo_loss(pc, args[1], args[2], args[3], beta=1.0)
    (grad,) = torch.autograd.grad(losses.sum(), pc)
    return {"losses": losses, "smoothed": dpo_loss(*args, beta=1.0, label_smoothing=0.1)[0], "grad": grad}


# ---------------------------------------------------------------- properties from the paper (check file)


@case(params=["sigmoid", "ipo"], ids=["sigmoid", "ipo"], rtol=1e-9, atol=1e-9)
def log_ratio_invariance(loss_type):
    pc, pr, rc, rr = random_pairs()
    base = dpo_loss(pc, pr, rc, rr, beta=0.3, label_smoothing=0.1, loss_type=loss_type)
    c = torch.linspace(-5, 5, pc.numel(), dtype=torch.float64)
    shifted = dpo_loss(pc + c, pr, rc + c, rr, beta=0.3, label_smoothing=0.1, loss_type=loss_type)
    both = dpo_loss(pc + 7.0, pr + 7.0, rc, rr, beta=0.3, label_smoothing=0.1, loss_type=loss_type)[0]
    return {"base": base, "shifted": shifted, "policy_shift": both}


@case(rtol=1e-9, atol=1e-9)
def swapping_chosen_and_rejected():
    pc, pr, rc, rr = random_pairs(seed=2)
    out = {"margin": (pc - rc) - (pr - rr)}
    for beta, eps in ((0.2, 0.0), (0.7, 0.2), (0.4, 0.5)):
        out[f"{beta}_{eps}.fwd"] = dpo_loss(pc, pr, rc, rr, beta=beta, label_smoothing=eps)
        out[f"{beta}_{eps}.rev"] = dpo_loss(pr, pc, rr, rc, beta=beta, label_smoothing=eps)
    return out


@case(rtol=0, atol=1e-12)
def small_beta_limit():
    pc, pr, rc, rr = random_pairs(seed=3)
    return {"margin": (pc - rc) - (pr - rr), "losses": dpo_loss(pc, pr, rc, rr, beta=1e-5)[0]}


@case(params=[0.0, 0.3], ids=["eps0", "eps0.3"], rtol=1e-10, atol=1e-12)
def gradient_is_weighted_likelihood_gradient(eps):
    pc, pr, rc, rr = random_pairs(seed=4)
    pc.requires_grad_(True)
    pr.requires_grad_(True)
    losses, _, _ = dpo_loss(pc, pr, rc, rr, beta=0.25, label_smoothing=eps)
    gc, gr = torch.autograd.grad(losses.sum(), (pc, pr))
    return {"eps": eps, "margin": ((pc - rc) - (pr - rr)).detach(), "grad_chosen": gc, "grad_rejected": gr}


@case(rtol=1e-10, atol=1e-10)
def ipo_gradient_and_minimum():
    pc, pr, rc, rr = random_pairs(seed=5)
    pc.requires_grad_(True)
    beta = 0.4
    losses, _, _ = dpo_loss(pc, pr, rc, rr, beta=beta, loss_type="ipo")
    (gc,) = torch.autograd.grad(losses.sum(), pc)
    at_min, _, _ = dpo_loss(rr + 1 / (2 * beta) + rc - rr, rr, rc, rr, beta=beta, loss_type="ipo")
    with_eps, _, _ = dpo_loss(pc.detach(), pr, rc, rr, beta=beta, label_smoothing=0.3, loss_type="ipo")
    return {"margin": ((pc - rc) - (pr - rr)).detach(), "grad": gc, "at_min": at_min, "losses": losses,
            "with_eps": with_eps}


@case(params=["sigmoid", "ipo"], ids=["sigmoid", "ipo"], rtol=1e-12, atol=1e-12)
def rewards_detached_loss_differentiable(loss_type):
    pc, pr, rc, rr = random_pairs(seed=6)
    pc.requires_grad_(True)
    pr.requires_grad_(True)
    losses, chosen, rejected = dpo_loss(pc, pr, rc, rr, beta=0.1, loss_type=loss_type)
    return {"losses_requires_grad": losses.requires_grad, "chosen_requires_grad": chosen.requires_grad,
            "rejected_requires_grad": rejected.requires_grad, "chosen": chosen, "rejected": rejected,
            "chosen_log_ratio": (pc - rc).detach(), "rejected_log_ratio": (pr - rr).detach()}


@case(rtol=1e-12, atol=1e-12)
def pairs_are_independent():
    pc, pr, rc, rr = random_pairs(seed=7)
    perm = torch.randperm(pc.numel(), generator=torch.Generator().manual_seed(0))
    return {"perm": perm,
            "base": dpo_loss(pc, pr, rc, rr, beta=0.2, label_smoothing=0.05),
            "permuted": dpo_loss(pc[perm], pr[perm], rc[perm], rr[perm], beta=0.2, label_smoothing=0.05),
            "single": dpo_loss(pc[3:4], pr[3:4], rc[3:4], rr[3:4], beta=0.2, label_smoothing=0.05)}


@case(rtol=1e-9, atol=1e-9)
def descending_the_loss_separates_the_pair():
    pc = torch.tensor([-5.0, -2.0], dtype=torch.float64, requires_grad=True)
    pr = torch.tensor([-3.0, -1.0], dtype=torch.float64, requires_grad=True)
    rc, rr = t(-4.0, -2.0), t(-4.0, -2.0)
    trajectory = []
    for _ in range(30):
        losses, chosen, rejected = dpo_loss(pc, pr, rc, rr, beta=0.5)
        loss = losses.mean()
        trajectory.append(loss.item())
        grad_c, grad_r = torch.autograd.grad(loss, (pc, pr))
        with torch.no_grad():  # plain gradient descent, learning rate 1
            pc -= grad_c
            pr -= grad_r
    return {"trajectory": torch.tensor(trajectory, dtype=torch.float64), "chosen": chosen, "rejected": rejected}


@case
def unknown_loss_type_raises():
    pc, pr, rc, rr = random_pairs(seed=8)
    return {"result": dpo_loss(pc, pr, rc, rr, beta=0.1, loss_type="hinge")}
