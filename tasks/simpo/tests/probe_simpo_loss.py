"""Probe for simpo/1: `simpo_loss` in simpo/objective.py. Runs in the sandbox; emits outputs only, never compares.

The fixture cases are compared with the reference's outputs (tests/expected/, outside the sandbox) at the old
tolerances (float64: rtol 1e-9, atol 1e-10; float32: rtol = atol = 2e-5). The hand-checked values and the paper's
properties are judged by the trusted checks in check_simpo_loss.py (compare="none": the old tests did not compare
those outputs with the reference); inputs a check needs are emitted and compared with the reference's exactly."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from simpo.objective import simpo_loss

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "simpo_loss_cases.pt", weights_only=True)
F64 = [i for i, c in enumerate(CASES) if c["chosen_token_logps"].dtype == torch.float64]
F32 = [i for i, c in enumerate(CASES) if c["chosen_token_logps"].dtype != torch.float64]
TOL64 = dict(rtol=1e-9, atol=1e-10)
TOL32 = dict(rtol=2e-5, atol=2e-5)
EXACT = {"compare": "exact"}


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def case_id(i: int) -> str:
    c = CASES[i]
    lp = c["chosen_token_logps"]
    return f"{i}-b{c['beta']}-g{c['gamma']}-{tuple(lp.shape)}x{c['rejected_token_logps'].shape[1]}-{str(c['chosen_mask'].dtype)[6:]}-{str(lp.dtype)[6:]}"


def call(c: dict, chosen=None, rejected=None):
    return simpo_loss(
        c["chosen_token_logps"] if chosen is None else chosen,
        c["chosen_mask"],
        c["rejected_token_logps"] if rejected is None else rejected,
        c["rejected_mask"],
        beta=c["beta"],
        gamma=c["gamma"],
    )


def random_batch(seed: int, batch: int = 6, lw: int = 7, ll: int = 5):
    g = torch.Generator().manual_seed(seed)
    cw = -3 * torch.rand(batch, lw, generator=g, dtype=torch.float64)
    cl = -3 * torch.rand(batch, ll, generator=g, dtype=torch.float64)
    nw = torch.randint(1, lw + 1, (batch,), generator=g)
    nl = torch.randint(1, ll + 1, (batch,), generator=g)
    nw[0], nl[1] = lw, 1
    mw = torch.arange(lw)[None] < nw[:, None]
    ml = torch.arange(ll)[None] < nl[:, None]
    return cw, mw, cl, ml


# ---------------------------------------------------------------- differential (the reference's outputs)


def shapes(tensors) -> list:
    """Shapes as data: the probe runner sends a 0-d tensor as shape [1], and the old tests told them apart."""
    return [tuple(x.shape) for x in tensors]


def _outputs(i: int) -> dict:
    outputs = call(CASES[i])
    return {"is_tuple": isinstance(outputs, tuple), "outputs": outputs, "shapes": shapes(outputs)}


def _gradients(i: int) -> dict:
    c = CASES[i]
    chosen = c["chosen_token_logps"].clone().requires_grad_(True)
    rejected = c["rejected_token_logps"].clone().requires_grad_(True)
    losses, _, _ = call(c, chosen, rejected)
    gc, gr = torch.autograd.grad(losses.sum(), (chosen, rejected))
    return {"grad_chosen": gc, "grad_rejected": gr}


# `outputs` is (losses, chosen_rewards, rejected_rewards): its length, each shape and dtype (the inputs' dtype)
# and values are compared with the reference's; the gradients' dtype was not checked by the old tests
case(name="matches_reference", params=F64, ids=[case_id(i) for i in F64], **TOL64)(_outputs)
case(name="matches_reference", params=F32, ids=[case_id(i) for i in F32], **TOL32)(_outputs)
case(name="gradients_match_reference", params=F64, ids=[case_id(i) for i in F64], dtype=False, **TOL64)(_gradients)
case(name="gradients_match_reference", params=F32, ids=[case_id(i) for i in F32], dtype=False, **TOL32)(_gradients)


# ---------------------------------------------------------------- values checked by hand (check file)


@case(compare="none")
def hand_checked_value():
    chosen = t(-1.0, -2.0, -3.0, -9.0)[None]
    chosen_mask = torch.tensor([[True, True, True, False]])
    rejected = t(-4.0, -6.0)[None]
    rejected_mask = torch.tensor([[True, True]])
    losses, rc, rr = simpo_loss(chosen, chosen_mask, rejected, rejected_mask, beta=2.0, gamma=1.0)
    equal_avg, _, _ = simpo_loss(t(-2.0, -2.0)[None], torch.ones(1, 2, dtype=torch.bool), t(-2.0)[None],
                                 torch.ones(1, 1, dtype=torch.bool), beta=2.0, gamma=1.0)
    return {"losses_shape": tuple(losses.shape), "loss": losses.item(), "chosen_reward": rc.item(),
            "rejected_reward": rr.item(), "equal_averages_loss": equal_avg.item()}


@case(compare="none")
def extreme_reward_gaps_are_stable():
    good, bad = t(-0.5, -0.5)[None], t(-10.5)[None]
    m2, m1 = torch.ones(1, 2, dtype=torch.bool), torch.ones(1, 1, dtype=torch.bool)
    return {"right_order": simpo_loss(good, m2, bad, m1, beta=100.0, gamma=0.0)[0].item(),
            "wrong_order": simpo_loss(bad, m1, good, m2, beta=100.0, gamma=0.0)[0].item()}


# ---------------------------------------------------------------- properties from the paper (check file)


@case(compare="none")
def padding_values_and_extra_padding_do_not_matter():
    cw, mw, cl, ml = random_batch(1)
    base = simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=0.5)
    junk_w = torch.where(mw, cw, torch.full_like(cw, -1e4))
    junk_l = torch.where(ml, cl, torch.full_like(cl, 37.0))
    junk = simpo_loss(junk_w, mw, junk_l, ml, beta=2.0, gamma=0.5)
    # three more padding columns on the chosen side
    wider_w = torch.cat([cw, torch.full((cw.shape[0], 3), -5.0, dtype=torch.float64)], dim=1)
    wider_m = torch.cat([mw, torch.zeros(mw.shape[0], 3, dtype=torch.bool)], dim=1)
    wider = simpo_loss(wider_w, wider_m, cl, ml, beta=2.0, gamma=0.5)
    return {"base": base, "junk": junk, "wider": wider}


@case(compare="none")
def reward_is_length_normalised():
    tokens = t(-0.2, -1.4, -0.9)
    once = simpo_loss(tokens[None], torch.ones(1, 3, dtype=torch.bool), t(-1.0)[None], torch.ones(1, 1, dtype=torch.bool),
                      beta=2.5, gamma=0.3)
    thrice = simpo_loss(tokens.repeat(3)[None], torch.ones(1, 9, dtype=torch.bool), t(-1.0, -1.0)[None],
                        torch.ones(1, 2, dtype=torch.bool), beta=2.5, gamma=0.3)
    return {"once": once, "thrice": thrice, "once_chosen_reward": once[1].item()}


@case(compare="none")
def shifting_every_token_logprob_only_shifts_rewards():
    cw, mw, cl, ml = random_batch(2)
    return {"base": simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=1.0),
            "shifted": simpo_loss(cw - 0.7, mw, cl - 0.7, ml, beta=2.0, gamma=1.0)}


@case(compare="none", outputs={"inputs.*": EXACT})
def rewards_are_beta_times_mean_and_detached():
    cw, mw, cl, ml = random_batch(3)
    inputs = [x.clone() for x in (cw, mw, cl, ml)]
    cw.requires_grad_(True)
    losses, rc, rr = simpo_loss(cw, mw, cl, ml, beta=2.5, gamma=0.3)
    return {"inputs": inputs, "losses_requires_grad": losses.requires_grad,
            "chosen_requires_grad": rc.requires_grad, "rejected_requires_grad": rr.requires_grad,
            "losses": losses, "chosen_rewards": rc, "rejected_rewards": rr}


@case(compare="none", outputs={"masks.*": EXACT})
def gradient_spreads_evenly_over_real_tokens():
    cw, mw, cl, ml = random_batch(4)
    cw.requires_grad_(True)
    cl.requires_grad_(True)
    beta, gamma = 2.0, 0.8
    losses, rc, rr = simpo_loss(cw, mw, cl, ml, beta=beta, gamma=gamma)
    gw, gl = torch.autograd.grad(losses.sum(), (cw, cl))
    return {"masks": [mw, ml], "chosen_rewards": rc, "rejected_rewards": rr, "grad_chosen": gw, "grad_rejected": gl}


@case(compare="none")
def gamma_is_a_margin_in_reward_units():
    cw, mw, cl, ml = random_batch(5)
    l0, rc, rr = simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=0.0)
    l1, _, _ = simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=1.5)
    return {"l0": l0, "l1": l1, "chosen_rewards": rc, "rejected_rewards": rr}


@case(compare="none")
def small_beta_limit():
    cw, mw, cl, ml = random_batch(6)
    return {"losses": simpo_loss(cw, mw, cl, ml, beta=1e-12, gamma=0.5)[0]}


@case(compare="none")
def mask_dtype_does_not_matter_and_pairs_are_independent():
    cw, mw, cl, ml = random_batch(7)
    return {"base": simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=1.0),
            "as_float": simpo_loss(cw, mw.double(), cl, ml.long(), beta=2.0, gamma=1.0),
            "single": (single := simpo_loss(cw[2:3], mw[2:3], cl[2:3], ml[2:3], beta=2.0, gamma=1.0)),
            "single_shapes": shapes(single)}
