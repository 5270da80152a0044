"""Probe for spin/1: `spin_loss` in spin/loss.py. Runs in the sandbox; emits outputs only, never compares.

The fixture cases are compared with the reference's outputs (tests/expected/, outside the sandbox) at the old
tolerances (float64: rtol 1e-9, atol 1e-10; float32: rtol = atol = 1e-4). The hand-checked values and the paper's
properties are judged by the trusted checks in check_spin_loss.py (compare="none": the old tests did not compare
those outputs with the reference); inputs a check needs are emitted and compared with the reference's exactly."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from spin.loss import spin_loss

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "spin_loss_cases.pt", weights_only=True)
F64 = [i for i, c in enumerate(CASES) if c["inputs"][0].dtype == torch.float64]
F32 = [i for i, c in enumerate(CASES) if c["inputs"][0].dtype != torch.float64]
TOL64 = dict(rtol=1e-9, atol=1e-10)
TOL32 = dict(rtol=1e-4, atol=1e-4)
EXACT = {"compare": "exact"}


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def case_id(i: int) -> str:
    c = CASES[i]
    return f"{i}-{c['loss_type']}-lam{c['lam']}-n{c['inputs'][0].numel()}-{str(c['inputs'][0].dtype)[6:]}"


def call(c, inputs=None):
    return spin_loss(*(c["inputs"] if inputs is None else inputs), lam=c["lam"], loss_type=c["loss_type"])


def shapes(tensors) -> list:
    """Shapes as data: the probe runner sends a 0-d tensor as shape [1], and the old tests told them apart."""
    return [tuple(x.shape) for x in tensors]


def random_inputs(seed: int, batch: int = 10, spread: float = 4.0):
    g = torch.Generator().manual_seed(seed)
    opp = -(1 + 30 * torch.rand(2, batch, generator=g, dtype=torch.float64))
    pol = opp + spread * torch.randn(2, batch, generator=g, dtype=torch.float64)
    return pol[0], pol[1], opp[0], opp[1]


def inputs_of(*tensors) -> list:
    """Copies of the inputs, taken before any call (compared with the reference's exactly; checks read those)."""
    return [x.detach().clone() for x in tensors]


# ---------------------------------------------------------------- differential (the reference's outputs)


def _outputs(i: int) -> dict:
    outputs = call(CASES[i])
    return {"is_tuple": isinstance(outputs, tuple), "outputs": outputs, "shapes": shapes(outputs)}


def _gradients(i: int) -> dict:
    pr, pg, orl, og = (x.clone() for x in CASES[i]["inputs"])
    pr.requires_grad_(True)
    pg.requires_grad_(True)
    losses, _, _ = call(CASES[i], (pr, pg, orl, og))
    gr, gg = torch.autograd.grad(losses.sum(), (pr, pg))
    return {"grad_policy_real": gr, "grad_policy_generated": gg}


# `outputs` is (losses, real_rewards, generated_rewards): its length, each shape and dtype (the inputs' dtype)
# and values are compared with the reference's; the gradients' dtype was not checked by the old tests
case(name="matches_reference", params=F64, ids=[case_id(i) for i in F64], **TOL64)(_outputs)
case(name="matches_reference", params=F32, ids=[case_id(i) for i in F32], **TOL32)(_outputs)
case(name="gradients_match_reference", params=F64, ids=[case_id(i) for i in F64], dtype=False, **TOL64)(_gradients)
case(name="gradients_match_reference", params=F32, ids=[case_id(i) for i in F32], dtype=False, **TOL32)(_gradients)


# ---------------------------------------------------------------- values checked by hand (check file)


@case(compare="none")
def hand_checked_values():
    args = (t(-2.0), t(-5.0), t(-3.0), t(-3.0))
    losses, real_r, gen_r = spin_loss(*args, lam=0.5)
    swapped = (t(-5.0), t(-2.0), t(-3.0), t(-3.0))
    return {"logistic": losses.item(), "real_reward": real_r.item(), "generated_reward": gen_r.item(),
            "hinge_lam0.5": spin_loss(*args, lam=0.5, loss_type="hinge")[0].item(),
            "hinge_lam0.2": spin_loss(*args, lam=0.2, loss_type="hinge")[0].item(),
            "swapped_logistic": spin_loss(*swapped, lam=0.5)[0].item(),
            "swapped_hinge": spin_loss(*swapped, lam=0.5, loss_type="hinge")[0].item()}


@case(compare="none")
def start_of_iteration_model_equals_opponent():
    g = torch.Generator().manual_seed(0)
    opp = -20 * torch.rand(2, 5, generator=g, dtype=torch.float64)
    out = {}
    for loss_type in ("logistic", "hinge"):
        pr = opp[0].clone().requires_grad_(True)
        pg = opp[1].clone().requires_grad_(True)
        losses, rr, gr = spin_loss(pr, pg, opp[0], opp[1], lam=0.3, loss_type=loss_type)
        d_real, d_gen = torch.autograd.grad(losses.sum(), (pr, pg))
        out[loss_type] = {"losses": losses, "real_rewards": rr, "generated_rewards": gr, "d_real": d_real,
                          "d_gen": d_gen}
    return out


@case(compare="none")
def extreme_arguments_are_stable():
    args = (t(-1.0, -2001.0), t(-2001.0, -1.0), t(-1001.0, -1001.0), t(-1001.0, -1001.0))
    losses, _, _ = spin_loss(*args, lam=0.5)
    pr = args[0].clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(spin_loss(pr, *args[1:], lam=0.5)[0].sum(), pr)
    return {"losses": losses, "grad": grad}


# ---------------------------------------------------------------- properties from the paper (check file)


@case(params=["logistic", "hinge"], ids=["logistic", "hinge"], compare="none")
def only_log_ratios_matter(loss_type):
    pr, pg, orl, og = random_inputs(1)
    c = torch.linspace(-6, 6, pr.numel(), dtype=torch.float64)
    return {"base": spin_loss(pr, pg, orl, og, lam=0.2, loss_type=loss_type),
            "shifted": spin_loss(pr + c, pg - 2 * c, orl + c, og - 2 * c, lam=0.2, loss_type=loss_type)}


@case(compare="none", outputs={"inputs*": EXACT})
def logistic_loss_is_softplus_of_minus_lambda_margin():
    pr, pg, orl, og = random_inputs(2)
    inputs = inputs_of(pr, pg, orl, og)
    return {"inputs": inputs, "fwd": spin_loss(pr, pg, orl, og, lam=0.35)[0],
            "rev": spin_loss(pg, pr, og, orl, lam=0.35)[0]}


@case(compare="none", outputs={"inputs*": EXACT})
def hinge_loss_and_its_flat_region():
    pr, pg, orl, og = random_inputs(3, batch=40)
    inputs = inputs_of(pr, pg, orl, og)
    pr.requires_grad_(True)
    pg.requires_grad_(True)
    losses, _, _ = spin_loss(pr, pg, orl, og, lam=0.4, loss_type="hinge")
    d_real, d_gen = torch.autograd.grad(losses.sum(), (pr, pg))
    return {"inputs": inputs, "losses": losses, "d_real": d_real, "d_gen": d_gen}


@case(compare="none", outputs={"inputs*": EXACT})
def logistic_gradient_weights():
    pr, pg, orl, og = random_inputs(4)
    inputs = inputs_of(pr, pg, orl, og)
    pr.requires_grad_(True)
    pg.requires_grad_(True)
    losses, _, _ = spin_loss(pr, pg, orl, og, lam=0.7)
    d_real, d_gen = torch.autograd.grad(losses.sum(), (pr, pg))
    return {"inputs": inputs, "d_real": d_real, "d_gen": d_gen}


@case(compare="none")
def opponent_that_matches_the_data_gives_no_net_update():
    pr, _, orl, _ = random_inputs(5)
    pr = pr.clone().requires_grad_(True)
    out = {}
    for loss_type in ("logistic", "hinge"):
        losses, rr, gr = spin_loss(pr, pr, orl, orl, lam=0.25, loss_type=loss_type)
        (total,) = torch.autograd.grad(losses.sum(), pr)
        out[loss_type] = {"total_gradient": total, "real_rewards": rr, "generated_rewards": gr, "losses": losses}
    return out


@case(compare="none", outputs={"inputs*": EXACT})
def small_lambda_limit():
    pr, pg, orl, og = random_inputs(6)
    inputs = inputs_of(pr, pg, orl, og)
    return {"inputs": inputs, "losses": spin_loss(pr, pg, orl, og, lam=1e-5)[0]}


@case(compare="none", outputs={"inputs*": EXACT})
def rewards_detached_losses_differentiable_and_per_pair():
    pr, pg, orl, og = random_inputs(7)
    inputs = inputs_of(pr, pg, orl, og)
    pr.requires_grad_(True)
    pg.requires_grad_(True)
    out = {"inputs": inputs}
    for loss_type in ("logistic", "hinge"):
        losses, rr, gr = spin_loss(pr, pg, orl, og, lam=0.1, loss_type=loss_type)
        single = spin_loss(pr[4:5], pg[4:5], orl[4:5], og[4:5], lam=0.1, loss_type=loss_type)
        out[loss_type] = {"losses": losses, "losses_shape": tuple(losses.shape),
                          "losses_requires_grad": losses.requires_grad,
                          "real_requires_grad": rr.requires_grad, "generated_requires_grad": gr.requires_grad,
                          "real_rewards": rr, "generated_rewards": gr,
                          "single": single, "single_shapes": shapes(single)}
    return out


@case
def unknown_loss_type_raises():
    pr, pg, orl, og = random_inputs(8)
    return {"result": spin_loss(pr, pg, orl, og, lam=0.1, loss_type="sigmoid-ish")}
