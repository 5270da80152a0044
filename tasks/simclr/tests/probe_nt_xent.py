"""Probe for simclr/1: `nt_xent_loss` in simclr/losses.py. Runs in the sandbox; emits outputs only.

The fixture cases and the hand-checked values are compared with the reference's outputs (tests/expected/, outside
the sandbox); the hand-checked literals and the properties are judged by the trusted checks in check_nt_xent.py.
Outputs only a check looks at (the old tests did not compare them with the reference) are compare="none"; the
inputs a check needs are emitted too and compared with the reference's exactly, and the checks read them from the
reference's run."""
from pathlib import Path

import torch

from lmrbench_probe import case
from simclr.losses import nt_xent_loss

FIX = torch.load(Path(__file__).parent / "fixtures" / "nt_xent_cases.pt", weights_only=True)
DT = torch.float64
EXACT = {"compare": "exact"}


def shaped(**outputs) -> dict:
    """The outputs, each with its shape as data (`KEY.shape`): the probe runner sends a 0-d tensor as shape [1],
    and the old tests told a scalar loss from a one-element one. A non-tensor has no shape: the case raises."""
    return {**outputs, **{f"{k}.shape": tuple(v.shape) for k, v in outputs.items()}}


def _rand(seed, n=6, d=5):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g, dtype=DT), torch.randn(n, d, generator=g, dtype=DT)


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(FIX["cases"])), rtol=1e-7, atol=1e-9, outputs={"grad_*": {"rtol": 1e-6, "atol": 1e-8}})
def matches_reference_values_and_gradients(i):
    c = FIX["cases"][i]
    z1 = c["z1"].clone().requires_grad_(True)
    z2 = c["z2"].clone().requires_grad_(True)
    loss = nt_xent_loss(z1, z2, temperature=c["temperature"], reduction=c["reduction"])
    g1, g2 = torch.autograd.grad(loss.sum(), (z1, z2))
    return {**shaped(loss=loss), "grad_z1": g1, "grad_z2": g2}


# ---------------------------------------------------------------- values checked by hand (check file)


@case(rtol=1e-7, atol=1e-9, dtype=False)
def hand_values():
    e1, e2 = torch.eye(2, dtype=DT)
    z = torch.stack([e1, e2])
    swapped = torch.stack([e2, e1])
    return shaped(identical_tau1=nt_xent_loss(z, z.clone(), temperature=1.0),
                  identical_tau05=nt_xent_loss(z, z.clone(), temperature=0.5),
                  swapped_none=nt_xent_loss(z, swapped, temperature=1.0, reduction="none"),
                  swapped_sum=nt_xent_loss(z, swapped, temperature=1.0, reduction="sum"))


@case(rtol=1e-7, atol=1e-12, dtype=False)
def batch_of_one_is_zero():
    z1, z2 = _rand(0, n=1, d=3)
    return shaped(loss=nt_xent_loss(z1, z2, temperature=0.3, reduction="none"))


# ---------------------------------------------------------------- properties (check file)


@case(compare="none", outputs={"z*": EXACT})
def none_reduction_layout():
    z1, z2 = _rand(1, n=5, d=4)
    inputs = {"z1": z1.clone(), "z2": z2.clone()}  # copies taken before the calls
    return {**inputs, **shaped(none=nt_xent_loss(z1, z2, temperature=0.4, reduction="none"),
                               swapped=nt_xent_loss(z2, z1, temperature=0.4, reduction="none"),
                               mean=nt_xent_loss(z1, z2, temperature=0.4),
                               sum=nt_xent_loss(z1, z2, temperature=0.4, reduction="sum"))}


@case(compare="none", outputs={"perm": EXACT})
def invariant_to_scale_rotation_and_permutation():
    z1, z2 = _rand(2, n=7, d=6)
    g = torch.Generator().manual_seed(3)
    s1 = torch.rand(7, 1, generator=g, dtype=DT) * 20 + 0.05
    s2 = torch.rand(7, 1, generator=g, dtype=DT) * 20 + 0.05
    q, _ = torch.linalg.qr(torch.randn(6, 6, generator=g, dtype=DT))
    perm = torch.randperm(7, generator=g)
    return {"perm": perm,
            **shaped(base=nt_xent_loss(z1, z2, temperature=0.25, reduction="none"),
                     scaled=nt_xent_loss(z1 * s1, z2 * s2, temperature=0.25, reduction="none"),  # cosine similarity
                     rotated=nt_xent_loss(z1 @ q, z2 @ q, temperature=0.25, reduction="none"),
                     permuted=nt_xent_loss(z1[perm], z2[perm], temperature=0.25, reduction="none"))}


@case(compare="none")
def temperature_limits():
    z1, z2 = _rand(4, n=6, d=3)
    eye = torch.eye(4, dtype=DT)
    return {**shaped(tau_1e8=nt_xent_loss(z1, z2, temperature=1e8)),
            "tau_small": nt_xent_loss(eye, 3 * eye, temperature=0.02).item(),
            "eye_tau0.5": nt_xent_loss(eye, eye, temperature=0.5).item(),
            "eye_tau0.2": nt_xent_loss(eye, eye, temperature=0.2).item()}


@case(compare="none")
def loss_is_positive_and_rewards_alignment():
    z1, z2 = _rand(5, n=8, d=8)
    return {"aligned": nt_xent_loss(z1, z1 + 0.01 * z2, temperature=0.5).item(),
            "random": nt_xent_loss(z1, z2, temperature=0.5).item()}


@case(compare="none", outputs={"z*": EXACT})
def gradient_is_orthogonal_to_each_embedding():
    z1, z2 = (t.requires_grad_(True) for t in _rand(6, n=5, d=7))
    inputs = {"z1": z1.detach().clone(), "z2": z2.detach().clone()}
    g1, g2 = torch.autograd.grad(nt_xent_loss(z1, z2, temperature=0.3), (z1, z2))
    return {**inputs, **shaped(grad_z1=g1, grad_z2=g2)}


@case(compare="none")
def float32_small_temperature_is_stable():
    c = FIX["float32"]
    # the old fixture held the reference's loss on the same numbers in float64: the reference's run of
    # `loss_f64` (trusted, in tests/expected/) is now that value
    return {"loss_f64": nt_xent_loss(c["z1"].double(), c["z2"].double(), temperature=c["temperature"],
                                     reduction="none"),
            **shaped(out=nt_xent_loss(c["z1"], c["z2"], temperature=c["temperature"], reduction="none"),
                     mean=nt_xent_loss(c["z1"], c["z2"], temperature=c["temperature"]))}
