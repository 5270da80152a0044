"""Hidden tests for adalora/1: SVDLinear.forward."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn as nn

from adalora.layers import RANKNUM_EPS, SVDLinear

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


def build(case: dict) -> SVDLinear:
    layer = SVDLinear(**case["config"], dtype=DT)
    layer.load_state_dict(case["state"])
    if case["dropout_mask"] is not None:
        layer.lora_dropout = MaskDropout(case["dropout_mask"])
    return layer


def random_layer(seed: int, in_f: int = 5, out_f: int = 4, r: int = 3, alpha: float = 6.0, **kw) -> SVDLinear:
    gen = torch.Generator().manual_seed(seed)
    layer = SVDLinear(in_f, out_f, r=r, lora_alpha=alpha, dtype=DT, **kw)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=DT))
    return layer


def close(a: torch.Tensor, b: torch.Tensor, rtol: float = RTOL, atol: float = ATOL) -> None:
    torch.testing.assert_close(a, b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_output_and_gradients_match_reference(idx: int) -> None:
    case = CASES[idx]
    layer = build(case)
    x = case["x"].clone().requires_grad_(True)
    out = layer(x)
    assert out.shape == case["out"].shape
    assert out.dtype == DT
    # Relative tolerance scaled for the extreme-value case, where outputs reach ~1e8.
    close(out, case["out"], atol=ATOL * max(1.0, float(case["out"].abs().max())))
    (out * case["cotangent"]).sum().backward()
    close(x.grad, case["grads"]["x"], atol=ATOL * max(1.0, float(case["grads"]["x"].abs().max())))
    for name in ("lora_A", "lora_E", "lora_B"):
        if name in case["grads"]:
            ref = case["grads"][name]
            close(getattr(layer, name).grad, ref, atol=ATOL * max(1.0, float(ref.abs().max())))
    # The pre-trained part is frozen: no gradient reaches it.
    assert layer.weight.grad is None
    assert layer.bias is None or layer.bias.grad is None


def test_hand_computed_value() -> None:
    # d_in = 2, d_out = 1, r = 2, alpha = 4 (scaling 4), ranknum = 2.
    # Frozen part: W x + b = 1*3 + (-2)*1 + 0.5 = 1.5.
    # A * E = [[1,0]*2, [1,1]*(-1)] = [[2,0],[-1,-1]];  x (A*E)^T = [6, -4];  times B^T = [1,3]: 6 - 12 = -6.
    # Adapter: -6 * 4 / (2 + 1e-5) = -11.99994000029999...;  total = 1.5 - 11.9999400003 = -10.4999400003.
    layer = SVDLinear(2, 1, r=2, lora_alpha=4.0, dtype=DT)
    layer.load_state_dict({
        "weight": torch.tensor([[1.0, -2.0]], dtype=DT),
        "bias": torch.tensor([0.5], dtype=DT),
        "lora_A": torch.tensor([[1.0, 0.0], [1.0, 1.0]], dtype=DT),
        "lora_E": torch.tensor([[2.0], [-1.0]], dtype=DT),
        "lora_B": torch.tensor([[1.0, 3.0]], dtype=DT),
        "ranknum": torch.tensor(2.0, dtype=DT),
    })
    out = layer(torch.tensor([[3.0, 1.0]], dtype=DT))
    close(out, torch.tensor([[-10.49994000029999985]], dtype=DT), rtol=0, atol=1e-11)


def test_zero_singular_values_give_the_frozen_layer() -> None:
    # Lambda = 0 (the initialisation, or every triplet pruned): the layer is exactly the pre-trained one.
    for fifo in (False, True):
        layer = random_layer(1, fan_in_fan_out=fifo)
        with torch.no_grad():
            layer.lora_E.zero_()
        x = torch.randn(4, 5, generator=torch.Generator().manual_seed(2), dtype=DT)
        w = layer.weight.T if fifo else layer.weight
        close(layer(x), x @ w.T + layer.bias, rtol=0, atol=1e-12)


@pytest.mark.parametrize("fifo", [False, True])
def test_equals_linear_layer_with_svd_form_weight(fifo: bool) -> None:
    # paper.md: the layer is a linear layer with weight W0 + alpha / (ranknum + eps) * B diag(E) A.
    layer = random_layer(3, in_f=6, out_f=3, r=4, alpha=5.0, fan_in_fan_out=fifo)
    with torch.no_grad():
        layer.ranknum.fill_(2.5)
    w0 = layer.weight.T if fifo else layer.weight
    delta = layer.lora_B @ torch.diag(layer.lora_E.view(-1)) @ layer.lora_A
    w = w0 + delta * 5.0 / (2.5 + RANKNUM_EPS)
    x = torch.randn(2, 3, 6, generator=torch.Generator().manual_seed(4), dtype=DT)
    close(layer(x), x @ w.T + layer.bias)


def test_triplets_contribute_additively() -> None:
    # Zeroing lambda_i removes exactly the rank-one piece of triplet i (what makes pruning meaningful).
    layer = random_layer(5, r=4)
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(6), dtype=DT)
    full_e = layer.lora_E.detach().clone()
    with torch.no_grad():
        layer.lora_E.zero_()
        base = layer(x)
        pieces = []
        for i in range(4):
            layer.lora_E.zero_()
            layer.lora_E[i] = full_e[i]
            pieces.append(layer(x) - base)
        layer.lora_E.copy_(full_e)
        close(layer(x), base + sum(pieces))
        # Each piece is rank one: it is proportional to column i of B.
        for i, piece in enumerate(pieces):
            coeff = piece @ layer.lora_B[:, i] / layer.lora_B[:, i].dot(layer.lora_B[:, i])
            close(piece, coeff[:, None] * layer.lora_B[:, i][None, :])


def test_adapter_part_is_inversely_proportional_to_ranknum_plus_eps() -> None:
    layer = random_layer(7, r=3, alpha=3.0)
    x = torch.randn(5, 5, generator=torch.Generator().manual_seed(8), dtype=DT)
    with torch.no_grad():
        e = layer.lora_E.clone()
        layer.lora_E.zero_()
        base = layer(x)
        layer.lora_E.copy_(e)
        parts = []
        for ranknum in (3.0, 1.0, 0.5):
            layer.ranknum.fill_(ranknum)
            parts.append((layer(x) - base) * (ranknum + RANKNUM_EPS))
    close(parts[1], parts[0])
    close(parts[2], parts[0])
    # ranknum = 0 (all triplets pruned but lambda not yet zeroed) stays finite thanks to eps.
    with torch.no_grad():
        layer.ranknum.fill_(0.0)
        out = layer(x)
    assert torch.isfinite(out).all()
    close(out, base + parts[0] / RANKNUM_EPS, rtol=1e-9)


def test_dropout_applies_to_the_adapter_branch_only() -> None:
    layer = random_layer(9)
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(10), dtype=DT)
    mask = torch.zeros(4, 5, dtype=DT)  # drop the whole adapter input
    layer.lora_dropout = MaskDropout(mask)
    w = layer.weight
    close(layer(x), x @ w.T + layer.bias, rtol=0, atol=1e-12)
    # A mask of 2 doubles the adapter part and leaves the frozen part alone.
    with torch.no_grad():
        layer.lora_dropout = nn.Identity()
        plain = layer(x)
        layer.lora_dropout = MaskDropout(torch.full((4, 5), 2.0, dtype=DT))
        doubled = layer(x)
    base = x @ w.T + layer.bias
    close(doubled - base, 2.0 * (plain - base))


def test_dropout_is_inactive_in_eval_mode_and_active_in_train_mode() -> None:
    gen = torch.Generator().manual_seed(11)
    layer = SVDLinear(6, 4, r=3, lora_alpha=3.0, lora_dropout=0.5, dtype=DT)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=DT))
    reference = SVDLinear(6, 4, r=3, lora_alpha=3.0, lora_dropout=0.0, dtype=DT)
    reference.load_state_dict(layer.state_dict())
    x = torch.randn(8, 6, generator=gen, dtype=DT)
    layer.eval()
    close(layer(x), reference(x))
    layer.train()
    torch.manual_seed(0)
    assert not torch.allclose(layer(x), reference(x))


def test_layer_tensors_are_not_modified() -> None:
    layer = random_layer(12, fan_in_fan_out=True)
    before = {k: v.clone() for k, v in layer.state_dict().items()}
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(13), dtype=DT)
    layer(x).sum().backward()
    for k, v in layer.state_dict().items():
        assert torch.equal(v, before[k]), k
    assert layer.ranknum.grad is None and not layer.ranknum.requires_grad


def test_float32_layer() -> None:
    layer64 = random_layer(14, in_f=4, out_f=6, r=2, alpha=2.0)
    layer32 = SVDLinear(4, 6, r=2, lora_alpha=2.0, dtype=torch.float32)
    layer32.load_state_dict({k: v.float() for k, v in layer64.state_dict().items()})
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(15), dtype=DT)
    out = layer32(x.float())
    assert out.dtype == torch.float32
    close(out.double(), layer64(x).detach(), rtol=1e-5, atol=1e-5)
