"""Probe for tdpo/2: `tdpo_loss` in tdpo/objective.py. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox) at the old
differential tolerance (float64: rtol 1e-9, atol 1e-10; float32: rtol 1e-4, atol 1e-5); the trusted checks in
check_tdpo_loss.py hold the hand-checked values and the properties, at the old tests' tolerances. One case per
old pytest test (tests/test_tdpo_loss.py before the port)."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from tdpo.objective import tdpo_loss

CASES = torch.load(Path(__file__).parent / "fixtures" / "tdpo_loss_cases.pt", weights_only=True)
F64 = dict(rtol=1e-9, atol=1e-10)
F32 = dict(rtol=1e-4, atol=1e-5)
INPUT_NAMES = ("chosen_logps_margin", "rejected_logps_margin", "chosen_seq_kl", "rejected_seq_kl")


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def grads_of(losses: torch.Tensor, leaves) -> list[torch.Tensor]:
    """A gradient autograd reports as unused (None) counts as zero: either way of writing the stop-gradient."""
    gs = torch.autograd.grad(losses.sum(), leaves, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for g, x in zip(gs, leaves)]


def case_id(i: int) -> str:
    c = CASES[i]
    v = "tdpo2" if c["use_tdpo2"] else "tdpo1"
    return f"{i}-{v}-b{c['beta']}-a{c['alpha']}-n{c['inputs'][0].numel()}-{str(c['inputs'][0].dtype)[6:]}"


IDS = [case_id(i) for i in range(len(CASES))]


def call(c, inputs=None):
    return tdpo_loss(*(c["inputs"] if inputs is None else inputs), beta=c["beta"], alpha=c["alpha"],
                     use_tdpo2=c["use_tdpo2"])


def prefix(c) -> str:
    """float32 cases' outputs carry the float32 tolerance (see the `outputs` patterns)."""
    return "f32." if c["inputs"][0].dtype == torch.float32 else ""


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(CASES)), ids=IDS, **F64, outputs={"f32.*": F32})
def matches_reference(i):
    c = CASES[i]
    out = call(c)
    losses, chosen, rejected = out
    p = prefix(c)
    return {"is_tuple": isinstance(out, tuple), f"{p}losses": losses, f"{p}chosen_rewards": chosen,
            f"{p}rejected_rewards": rejected}


@case(params=range(len(CASES)), ids=IDS, **F64, outputs={"f32.*": F32})
def gradients_match_reference(i):
    # includes the stop-gradient: with TDPO2 the chosen sequential KL receives no gradient
    c = CASES[i]
    leaves = [x.clone().requires_grad_(True) for x in c["inputs"]]
    losses, _, _ = call(c, leaves)
    p = prefix(c)
    return {f"{p}grad_{name}": g for name, g in zip(INPUT_NAMES, grads_of(losses, leaves))}


# ---------------------------------------------------------------- values checked by hand (check file)


def hand_args():
    # log-ratio sums: chosen +1, rejected -1; sequential KLs: chosen 0.5, rejected 2.5
    return (t(1.0), t(-1.0), t(0.5), t(2.5))


@case(**F64)
def hand_checked_values():
    l1, rc, rr = tdpo_loss(*hand_args(), beta=0.5, alpha=0.5, use_tdpo2=False)
    l2, _, _ = tdpo_loss(*hand_args(), beta=0.5, alpha=0.5, use_tdpo2=True)
    return {"tdpo1": l1.item(), "chosen": rc.item(), "rejected": rr.item(), "tdpo2": l2.item()}


@case(**F64)
def hand_checked_gradients():
    leaves = [x.requires_grad_(True) for x in hand_args()]
    g1 = grads_of(tdpo_loss(*leaves, beta=0.5, alpha=0.5, use_tdpo2=False)[0], leaves)
    g2 = grads_of(tdpo_loss(*leaves, beta=0.5, alpha=0.5, use_tdpo2=True)[0], leaves)
    return {"tdpo1": torch.cat(g1), "tdpo2": torch.cat(g2)}


@case(**F64)
def extreme_arguments_are_stable():
    # z = beta * (margin gap - KL gap) = -+2000
    args = (t(-1000.0, 1000.0), t(1000.0, -1000.0), t(0.0, 0.0), t(0.0, 0.0))
    return {f"tdpo{2 if v else 1}": tdpo_loss(*args, beta=1.0, alpha=0.5, use_tdpo2=v)[0] for v in (False, True)}


# ---------------------------------------------------------------- properties (check file)


def random_inputs(seed: int, batch: int = 9):
    g = torch.Generator().manual_seed(seed)
    cm, rm = 4 * torch.randn(2, batch, generator=g, dtype=torch.float64)
    ckl, rkl = 6 * torch.rand(2, batch, generator=g, dtype=torch.float64)
    return cm, rm, ckl, rkl


@case(**F64)
def zero_kl_or_zero_alpha_reduces_to_dpo():
    cm, rm, ckl, rkl = random_inputs(1)
    zeros = torch.zeros_like(ckl)
    out = {"chosen_margin": cm, "rejected_margin": rm}
    for v in (False, True):
        out[f"zero_kl_tdpo{2 if v else 1}"] = tdpo_loss(cm, rm, zeros, zeros, beta=0.3, alpha=0.5, use_tdpo2=v)[0]
    out["zero_alpha_tdpo2"] = tdpo_loss(cm, rm, ckl, rkl, beta=0.3, alpha=0.0, use_tdpo2=True)[0]
    return out


@case(**F64)
def tdpo1_ignores_alpha_and_tdpo2_with_alpha_one_has_tdpo1_values():
    cm, rm, ckl, rkl = random_inputs(2)
    return {"tdpo1_alpha0.1": tdpo_loss(cm, rm, ckl, rkl, beta=0.2, alpha=0.1, use_tdpo2=False)[0],
            "tdpo1_alpha3": tdpo_loss(cm, rm, ckl, rkl, beta=0.2, alpha=3.0, use_tdpo2=False)[0],
            "tdpo2_alpha1": tdpo_loss(cm, rm, ckl, rkl, beta=0.2, alpha=1.0, use_tdpo2=True)[0]}


@case(**F64)
def kl_direction_of_the_penalty():
    cm, rm, ckl, rkl = random_inputs(3)
    out = {}
    for v in (False, True):
        name = f"tdpo{2 if v else 1}"
        out[f"{name}.base"] = tdpo_loss(cm, rm, ckl, rkl, beta=0.5, alpha=0.5, use_tdpo2=v)[0]
        out[f"{name}.more_rejected_kl"] = tdpo_loss(cm, rm, ckl, rkl + 1.0, beta=0.5, alpha=0.5, use_tdpo2=v)[0]
        out[f"{name}.more_chosen_kl"] = tdpo_loss(cm, rm, ckl + 1.0, rkl, beta=0.5, alpha=0.5, use_tdpo2=v)[0]
    return out


@case(**F64)
def stop_gradient_in_tdpo2():
    leaves = [x.clone().requires_grad_(True) for x in random_inputs(4)]
    losses, _, _ = tdpo_loss(*leaves, beta=0.4, alpha=0.7, use_tdpo2=True)
    grads = grads_of(losses, leaves)
    return {"inputs": [x.detach() for x in leaves], "losses": losses,
            "grads": dict(zip(INPUT_NAMES, grads))}


@case(**F64)
def no_stop_gradient_in_tdpo1():
    leaves = [x.clone().requires_grad_(True) for x in random_inputs(5)]
    losses, _, _ = tdpo_loss(*leaves, beta=0.25, alpha=0.5, use_tdpo2=False)
    grads = grads_of(losses, leaves)
    return {"inputs": [x.detach() for x in leaves], "grads": dict(zip(INPUT_NAMES, grads))}


@case(**F64)
def rewards_detached_and_per_pair():
    cm, rm, ckl, rkl = random_inputs(6)
    cm.requires_grad_(True)
    rm.requires_grad_(True)
    out = {"chosen_margin": cm.detach(), "rejected_margin": rm.detach()}
    for v in (False, True):
        name = f"tdpo{2 if v else 1}"
        losses, rc, rr = tdpo_loss(cm, rm, ckl, rkl, beta=0.1, alpha=0.5, use_tdpo2=v)
        single = tdpo_loss(cm[2:3], rm[2:3], ckl[2:3], rkl[2:3], beta=0.1, alpha=0.5, use_tdpo2=v)
        out[name] = {"losses": losses, "chosen": rc, "rejected": rr, "losses_requires_grad": losses.requires_grad,
                     "chosen_requires_grad": rc.requires_grad, "rejected_requires_grad": rr.requires_grad,
                     "single": single}
    return out


@case(**F64)
def policy_equal_to_reference_gives_log_two():
    zeros = torch.zeros(5, dtype=torch.float64)
    return {f"tdpo{2 if v else 1}": tdpo_loss(zeros, zeros, zeros, zeros, beta=0.1, alpha=0.5, use_tdpo2=v)[0]
            for v in (False, True)}
