"""Probe for adalora/1: SVDLinear.forward. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox), except the
differential outputs and gradients, whose tolerance scales with the reference's magnitude: the trusted checks in
check_svdlinear_forward.py compare those, and add the hand-computed value and the layer's properties."""

from __future__ import annotations

from pathlib import Path

import torch
import torch.nn as nn

from adalora.layers import RANKNUM_EPS, SVDLinear
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
DT = torch.float64
RTOL, ATOL = 1e-10, 1e-10
CASES = torch.load(FIXTURES / "forward_cases.pt", weights_only=True)


class MaskDropout(nn.Module):
    """Deterministic stand-in for dropout (multiplies by a fixed mask), so tests can see where it is applied."""

    def __init__(self, mask: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("mask", mask)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.mask


def build(c: dict) -> SVDLinear:
    layer = SVDLinear(**c["config"], dtype=DT)
    layer.load_state_dict(c["state"])
    if c["dropout_mask"] is not None:
        layer.lora_dropout = MaskDropout(c["dropout_mask"])
    return layer


def random_layer(seed: int, in_f: int = 5, out_f: int = 4, r: int = 3, alpha: float = 6.0, **kw) -> SVDLinear:
    gen = torch.Generator().manual_seed(seed)
    layer = SVDLinear(in_f, out_f, r=r, lora_alpha=alpha, dtype=DT, **kw)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=DT))
    return layer


def forward(layer: SVDLinear, x: torch.Tensor) -> torch.Tensor:
    """The layer's output, which must be a tensor (anything else is reported as a TypeError, not emitted)."""
    out = layer(x)
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"forward returned {type(out).__name__}, not a tensor")
    return out


def frozen(layer: SVDLinear) -> dict:
    """The frozen weight as an (out, in) matrix and the bias: inputs of the checks' W x + b."""
    return {"w": (layer.weight.T if layer.fan_in_fan_out else layer.weight).detach(), "bias": layer.bias.detach()}


# ---------------------------------------------------------------- differential (checked in the check file)


@case(params=range(len(CASES)), rtol=RTOL, atol=ATOL, outputs={"out": {"compare": "none"}, "grad.*": {"compare": "none"}})
def output_and_gradients_match_reference(idx: int):
    c = CASES[idx]
    layer = build(c)
    x = c["x"].clone().requires_grad_(True)
    out = forward(layer, x)
    (out * c["cotangent"]).sum().backward()
    grads = {"x": x.grad}
    for name in ("lora_A", "lora_E", "lora_B"):
        if c["config"]["r"] > 0:
            grads[name] = getattr(layer, name).grad
    return {"out": out.detach(), "grad": grads, "weight_grad_is_none": layer.weight.grad is None,
            "bias_grad_is_none": layer.bias is None or layer.bias.grad is None}


# ---------------------------------------------------------------- values checked by hand and properties (check file)


@case(rtol=0.0, atol=1e-11)
def hand_computed_value():
    layer = SVDLinear(2, 1, r=2, lora_alpha=4.0, dtype=DT)
    layer.load_state_dict({
        "weight": torch.tensor([[1.0, -2.0]], dtype=DT),
        "bias": torch.tensor([0.5], dtype=DT),
        "lora_A": torch.tensor([[1.0, 0.0], [1.0, 1.0]], dtype=DT),
        "lora_E": torch.tensor([[2.0], [-1.0]], dtype=DT),
        "lora_B": torch.tensor([[1.0, 3.0]], dtype=DT),
        "ranknum": torch.tensor(2.0, dtype=DT),
    })
    return {"out": forward(layer, torch.tensor([[3.0, 1.0]], dtype=DT))}


@case(params=[False, True], ids=["fifo_False", "fifo_True"], rtol=0.0, atol=1e-12)
def zero_singular_values_give_the_frozen_layer(fifo: bool):
    # Lambda = 0 (the initialisation, or every triplet pruned): the layer is exactly the pre-trained one.
    layer = random_layer(1, fan_in_fan_out=fifo)
    with torch.no_grad():
        layer.lora_E.zero_()
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(2), dtype=DT)
    return {"x": x, **frozen(layer), "out": forward(layer, x)}


@case(params=[False, True], ids=["fifo_False", "fifo_True"], rtol=RTOL, atol=ATOL)
def equals_linear_layer_with_svd_form_weight(fifo: bool):
    layer = random_layer(3, in_f=6, out_f=3, r=4, alpha=5.0, fan_in_fan_out=fifo)
    with torch.no_grad():
        layer.ranknum.fill_(2.5)
    x = torch.randn(2, 3, 6, generator=torch.Generator().manual_seed(4), dtype=DT)
    return {"x": x, **frozen(layer), "A": layer.lora_A.detach(), "E": layer.lora_E.detach(),
            "B": layer.lora_B.detach(), "eps": RANKNUM_EPS, "out": forward(layer, x)}


@case(rtol=RTOL, atol=ATOL)
def triplets_contribute_additively():
    # Zeroing lambda_i removes exactly the rank-one piece of triplet i (what makes pruning meaningful).
    layer = random_layer(5, r=4)
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(6), dtype=DT)
    full_e = layer.lora_E.detach().clone()
    with torch.no_grad():
        layer.lora_E.zero_()
        base = forward(layer, x)
        pieces = []
        for i in range(4):
            layer.lora_E.zero_()
            layer.lora_E[i] = full_e[i]
            pieces.append(forward(layer, x) - base)
        layer.lora_E.copy_(full_e)
        full = forward(layer, x)
    return {"B": layer.lora_B.detach(), "base": base, "pieces": pieces, "full": full}


@case(rtol=RTOL, atol=ATOL)
def adapter_part_is_inversely_proportional_to_ranknum_plus_eps():
    layer = random_layer(7, r=3, alpha=3.0)
    x = torch.randn(5, 5, generator=torch.Generator().manual_seed(8), dtype=DT)
    out = {"eps": RANKNUM_EPS}
    with torch.no_grad():
        e = layer.lora_E.clone()
        layer.lora_E.zero_()
        out["base"] = forward(layer, x)
        layer.lora_E.copy_(e)
        for ranknum in (3.0, 1.0, 0.5, 0.0):
            layer.ranknum.fill_(ranknum)
            out[f"ranknum{ranknum}"] = forward(layer, x)
    return out


@case(rtol=RTOL, atol=ATOL, outputs={"zero_mask": dict(rtol=0.0, atol=1e-12)})
def dropout_applies_to_the_adapter_branch_only():
    layer = random_layer(9)
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(10), dtype=DT)
    layer.lora_dropout = MaskDropout(torch.zeros(4, 5, dtype=DT))  # drop the whole adapter input
    out = {"x": x, **frozen(layer), "zero_mask": forward(layer, x).detach()}
    # A mask of 2 doubles the adapter part and leaves the frozen part alone.
    with torch.no_grad():
        layer.lora_dropout = nn.Identity()
        out["plain"] = forward(layer, x)
        layer.lora_dropout = MaskDropout(torch.full((4, 5), 2.0, dtype=DT))
        out["doubled"] = forward(layer, x)
    return out


# Which entries dropout zeroes in train mode depends on how the candidate draws its mask: the old test only
# asked that the output differ from the dropout-free layer's, so that output is not compared with the reference.
@case(rtol=RTOL, atol=ATOL, outputs={"train": {"compare": "none"}})
def dropout_is_inactive_in_eval_mode_and_active_in_train_mode():
    gen = torch.Generator().manual_seed(11)
    layer = SVDLinear(6, 4, r=3, lora_alpha=3.0, lora_dropout=0.5, dtype=DT)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=DT))
    reference = SVDLinear(6, 4, r=3, lora_alpha=3.0, lora_dropout=0.0, dtype=DT)
    reference.load_state_dict(layer.state_dict())
    x = torch.randn(8, 6, generator=gen, dtype=DT)
    layer.eval()
    out = {"eval": forward(layer, x).detach(), "no_dropout": forward(reference, x).detach()}
    layer.train()
    torch.manual_seed(0)
    out["train"] = forward(layer, x).detach()
    return out


@case(rtol=RTOL, atol=ATOL)
def layer_tensors_are_not_modified():
    layer = random_layer(12, fan_in_fan_out=True)
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(13), dtype=DT)
    forward(layer, x).sum().backward()
    # the state after the call: the check compares it exactly with the reference run's (which leaves it alone)
    return {"state_after": {k: v.detach() for k, v in layer.state_dict().items()},
            "ranknum_grad_is_none": layer.ranknum.grad is None, "ranknum_requires_grad": layer.ranknum.requires_grad}


@case(rtol=RTOL, atol=ATOL, outputs={"out32": dict(rtol=1e-5, atol=1e-5)})
def float32_layer():
    layer64 = random_layer(14, in_f=4, out_f=6, r=2, alpha=2.0)
    layer32 = SVDLinear(4, 6, r=2, lora_alpha=2.0, dtype=torch.float32)
    layer32.load_state_dict({k: v.float() for k, v in layer64.state_dict().items()})
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(15), dtype=DT)
    return {"out32": forward(layer32, x.float()).detach(), "out64": forward(layer64, x).detach()}
