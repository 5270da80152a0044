"""Hidden tests for ergo/1: `focal_loss` in ergo/losses.py."""
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from ergo.losses import focal_loss

CASES = torch.load(Path(__file__).parent / "fixtures" / "focal_cases.pt", weights_only=True)
DT = torch.float64


def close(actual, expected, rtol=1e-7, atol=1e-10):
    assert isinstance(actual, torch.Tensor)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    torch.testing.assert_close(actual.to(expected.dtype), expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_matches_reference(i):
    case = CASES[i]
    x = case["logits"].clone().requires_grad_(True)
    loss = focal_loss(x, case["targets"], mask=case["mask"], **case["kwargs"])
    assert loss.dtype == DT
    close(loss, case["loss"])
    if "grad" in case:
        (grad,) = torch.autograd.grad(loss.sum(), x)
        close(grad, case["grad"], rtol=1e-6, atol=1e-10)


def test_hand_values():
    # alpha = 0.25, gamma = 2; loss = -alpha_t (1 - p_t)^2 log p_t with p = sigmoid(logit).
    # logit 0, y = 1: p_t = 0.5, alpha_t = 0.25 -> 0.25 * 0.25 * ln 2 = 0.04332169878499658
    # logit 0, y = 0: p_t = 0.5, alpha_t = 0.75 -> 0.75 * 0.25 * ln 2 = 0.12996509635498973
    # logit ln 3 (p = 0.75), y = 1: p_t = 0.75 -> 0.25 * 0.0625 * ln(4/3) = 0.004495032382059076
    # logit ln 3, y = 0: p_t = 0.25, alpha_t = 0.75 -> 0.75 * 0.5625 * ln 4 = 0.5848429335974539
    logits = torch.tensor([0.0, 0.0, math.log(3.0), math.log(3.0)], dtype=DT)
    targets = torch.tensor([1, 0, 1, 0])
    expected = torch.tensor([0.04332169878499658, 0.12996509635498973, 0.004495032382059076,
                             0.5848429335974539], dtype=DT)
    close(focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="none"), expected)
    close(focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="sum"), expected.sum())
    close(focal_loss(logits, targets, alpha=0.25, gamma=2.0), expected.mean())
    # the defaults are alpha = 0.25, gamma = 2, reduction = "mean"
    close(focal_loss(logits, targets), expected.mean())
    # confidently wrong: logit -100, y = 1 -> 0.25 * (1 - e^-100)^2 * (100 + log(1 + e^-100)) = 25.0
    close(focal_loss(torch.tensor([-100.0], dtype=DT), torch.tensor([1]), reduction="none"),
          torch.tensor([25.0], dtype=DT))


def test_gamma_zero_is_cross_entropy():
    g = torch.Generator().manual_seed(0)
    logits = 3 * torch.randn(4, 6, generator=g, dtype=DT)
    targets = (torch.rand(4, 6, generator=g) < 0.4).long()
    bce = F.binary_cross_entropy_with_logits(logits, targets.to(DT), reduction="none")
    close(focal_loss(logits, targets, alpha=None, gamma=0.0, reduction="none"), bce)
    # with alpha: class-weighted cross-entropy
    w = torch.where(targets.bool(), 0.8, 0.2).to(DT)
    close(focal_loss(logits, targets, alpha=0.8, gamma=0.0, reduction="none"), w * bce)
    close(focal_loss(logits, targets, alpha=0.8, gamma=0.0), (w * bce).mean())


def test_focusing_down_weights_easy_examples():
    logits = torch.tensor([4.0, 1.0, -0.5, -3.0], dtype=DT)
    targets = torch.tensor([1, 1, 1, 1])
    ce = focal_loss(logits, targets, alpha=None, gamma=0.0, reduction="none")
    prev = ce
    for gamma in (0.5, 1.0, 2.0, 5.0):
        cur = focal_loss(logits, targets, alpha=None, gamma=gamma, reduction="none")
        assert bool((cur < prev).all())
        prev = cur
    ratio = focal_loss(logits, targets, alpha=None, gamma=2.0, reduction="none") / ce
    # (1 - p_t)^2: tiny for the easy example (p_t ~ 0.982), close to 1 for the hard one (p_t ~ 0.047)
    assert ratio[0].item() < 1e-3 and ratio[3].item() > 0.9
    close(ratio, torch.sigmoid(-logits) ** 2)


def test_extreme_logits_are_finite_and_accurate():
    logits = torch.tensor([100.0, -100.0, 100.0, -100.0, 40.0, -40.0])
    targets = torch.tensor([1, 0, 0, 1, 1, 0])
    for dtype in (torch.float32, DT):
        out = focal_loss(logits.to(dtype), targets, alpha=0.25, gamma=2.0, reduction="none")
        assert out.dtype == dtype
        assert bool(torch.isfinite(out).all())
        # confidently right -> ~0; confidently wrong -> alpha_t * 100
        close(out.double(), torch.tensor([0.0, 0.0, 75.0, 25.0, 0.0, 0.0], dtype=DT), rtol=1e-6, atol=1e-6)
    x = logits.to(DT).requires_grad_(True)
    (grad,) = torch.autograd.grad(focal_loss(x, targets, reduction="sum"), x)
    assert bool(torch.isfinite(grad).all())


def test_mask_excludes_padding():
    g = torch.Generator().manual_seed(1)
    logits = 2 * torch.randn(3, 5, generator=g, dtype=DT)
    targets = (torch.rand(3, 5, generator=g) < 0.5).long()
    mask = torch.rand(3, 5, generator=g) < 0.6
    full = focal_loss(logits, targets, reduction="none")
    out = focal_loss(logits, targets, reduction="none", mask=mask)
    close(out, torch.where(mask, full, torch.zeros_like(full)))
    close(focal_loss(logits, targets, reduction="mean", mask=mask), full[mask].sum() / mask.sum())
    close(focal_loss(logits, targets, reduction="sum", mask=mask), full[mask].sum())
    # large values at padding positions must not change anything
    garbage = torch.where(mask, logits, torch.full_like(logits, 1e4))
    close(focal_loss(garbage, targets, reduction="mean", mask=mask), full[mask].sum() / mask.sum())
    # no valid element: the mean is 0, not NaN; one valid element: its own loss
    empty = torch.zeros(3, 5, dtype=torch.bool)
    close(focal_loss(logits, targets, mask=empty), torch.tensor(0.0, dtype=DT))
    one = empty.clone()
    one[1, 2] = True
    close(focal_loss(logits, targets, mask=one), full[1, 2])


def test_target_dtypes_agree():
    g = torch.Generator().manual_seed(2)
    logits = 2 * torch.randn(10, generator=g, dtype=DT)
    t = torch.rand(10, generator=g) < 0.5
    ref = focal_loss(logits, t.long(), alpha=0.3, gamma=1.5, reduction="none")
    close(focal_loss(logits, t, alpha=0.3, gamma=1.5, reduction="none"), ref)
    close(focal_loss(logits, t.to(DT), alpha=0.3, gamma=1.5, reduction="none"), ref)


def test_gradient_direction_and_mask():
    g = torch.Generator().manual_seed(3)
    x = (2 * torch.randn(12, generator=g, dtype=DT)).requires_grad_(True)
    targets = torch.tensor([1, 0] * 6)
    mask = torch.ones(12, dtype=torch.bool)
    mask[[2, 7]] = False
    (grad,) = torch.autograd.grad(focal_loss(x, targets, alpha=0.4, gamma=2.0, mask=mask), x)
    # gradient descent raises the logit of causal pairs and lowers it for the others
    valid = mask.clone()
    assert bool((grad[valid & (targets == 1)] < 0).all())
    assert bool((grad[valid & (targets == 0)] > 0).all())
    assert bool((grad[~mask] == 0).all())


def test_unknown_reduction_raises():
    with pytest.raises(ValueError):
        focal_loss(torch.zeros(3, dtype=DT), torch.ones(3), reduction="average")
