"""Hidden tests for simclr/1: `nt_xent_loss` in simclr/losses.py."""
import math
from pathlib import Path

import pytest
import torch

from simclr.losses import nt_xent_loss

FIX = torch.load(Path(__file__).parent / "fixtures" / "nt_xent_cases.pt", weights_only=True)
DT = torch.float64


def close(actual, expected, rtol=1e-7, atol=1e-9):
    assert isinstance(actual, torch.Tensor)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    torch.testing.assert_close(actual.to(expected.dtype), expected, rtol=rtol, atol=atol)


def _rand(seed, n=6, d=5):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g, dtype=DT), torch.randn(n, d, generator=g, dtype=DT)


@pytest.mark.parametrize("i", range(len(FIX["cases"])))
def test_matches_reference_values_and_gradients(i):
    case = FIX["cases"][i]
    z1 = case["z1"].clone().requires_grad_(True)
    z2 = case["z2"].clone().requires_grad_(True)
    loss = nt_xent_loss(z1, z2, temperature=case["temperature"], reduction=case["reduction"])
    assert loss.dtype == DT
    close(loss, case["loss"])
    g1, g2 = torch.autograd.grad(loss.sum(), (z1, z2))
    close(g1, case["grad_z1"], rtol=1e-6, atol=1e-8)
    close(g2, case["grad_z2"], rtol=1e-6, atol=1e-8)


def test_hand_values():
    e1, e2 = torch.eye(2, dtype=DT)
    # Views identical, the two examples orthogonal. Anchor e1 (tau = 1): positive e1 (cos 1), the
    # other two candidates e2, e2 (cos 0); self excluded. Loss = -log(e / (e + 1 + 1)) = log(e + 2) - 1.
    # Every anchor is alike, so the mean is the same: 0.5514447139320509.
    z = torch.stack([e1, e2])
    close(nt_xent_loss(z, z.clone(), temperature=1.0), torch.tensor(0.5514447139320509, dtype=DT))
    # Same with tau = 0.5: logits 2 (positive), 0, 0: log(e^2 + 2) - 2 = 0.23954476622188414.
    close(nt_xent_loss(z, z.clone(), temperature=0.5), torch.tensor(0.23954476622188414, dtype=DT))
    # Second views swapped: anchor e1 has positive e2 (cos 0) and candidates e2 (0), e1 (1):
    # loss = log(1 + 1 + e) - 0 = 1.5514447139320509 for every anchor; "sum" over 2N = 4 anchors.
    swapped = torch.stack([e2, e1])
    close(nt_xent_loss(z, swapped, temperature=1.0, reduction="none"),
          torch.full((4,), 1.5514447139320509, dtype=DT))
    close(nt_xent_loss(z, swapped, temperature=1.0, reduction="sum"),
          torch.tensor(4 * 1.5514447139320509, dtype=DT))


def test_batch_of_one_is_zero():
    # With N = 1 each anchor has a single candidate, its positive: softmax over one logit = 1.
    z1, z2 = _rand(0, n=1, d=3)
    out = nt_xent_loss(z1, z2, temperature=0.3, reduction="none")
    close(out, torch.zeros(2, dtype=DT), atol=1e-12)


def test_none_reduction_layout():
    z1, z2 = _rand(1, n=5, d=4)
    none = nt_xent_loss(z1, z2, temperature=0.4, reduction="none")
    assert none.shape == (10,)
    # swapping the views swaps the two halves (entries 0..N-1 are the z1 anchors)
    swapped = nt_xent_loss(z2, z1, temperature=0.4, reduction="none")
    close(swapped, torch.cat([none[5:], none[:5]]))
    close(nt_xent_loss(z1, z2, temperature=0.4), none.mean())
    close(nt_xent_loss(z1, z2, temperature=0.4, reduction="sum"), none.sum())
    # anchor 0 of the first view, written out: its logits against all other views
    z = torch.nn.functional.normalize(torch.cat([z1, z2]), dim=1)
    logits = z[0] @ z.T / 0.4
    expected0 = -(logits[5] - torch.logsumexp(logits[1:], dim=0))
    close(none[0], expected0)


def test_invariant_to_scale_rotation_and_permutation():
    z1, z2 = _rand(2, n=7, d=6)
    ref = nt_xent_loss(z1, z2, temperature=0.25, reduction="none")
    g = torch.Generator().manual_seed(3)
    s1 = torch.rand(7, 1, generator=g, dtype=DT) * 20 + 0.05
    s2 = torch.rand(7, 1, generator=g, dtype=DT) * 20 + 0.05
    close(nt_xent_loss(z1 * s1, z2 * s2, temperature=0.25, reduction="none"), ref)   # cosine similarity
    q, _ = torch.linalg.qr(torch.randn(6, 6, generator=g, dtype=DT))
    close(nt_xent_loss(z1 @ q, z2 @ q, temperature=0.25, reduction="none"), ref)
    perm = torch.randperm(7, generator=g)
    out = nt_xent_loss(z1[perm], z2[perm], temperature=0.25, reduction="none")
    close(out, torch.cat([ref[:7][perm], ref[7:][perm]]))


def test_temperature_limits():
    z1, z2 = _rand(4, n=6, d=3)
    # tau -> infinity: all logits -> 0, each anchor is a uniform guess among 2N - 1 = 11 views.
    close(nt_xent_loss(z1, z2, temperature=1e8), torch.tensor(math.log(11), dtype=DT), atol=1e-7)
    # identical views of mutually orthogonal examples: loss -> 0 as tau -> 0.
    eye = torch.eye(4, dtype=DT)
    small = nt_xent_loss(eye, 3 * eye, temperature=0.02)
    assert 0 <= small.item() < 1e-20
    assert nt_xent_loss(eye, eye, temperature=0.5).item() > nt_xent_loss(eye, eye, temperature=0.2).item()


def test_loss_is_positive_and_rewards_alignment():
    z1, z2 = _rand(5, n=8, d=8)
    aligned = nt_xent_loss(z1, z1 + 0.01 * z2, temperature=0.5)
    random = nt_xent_loss(z1, z2, temperature=0.5)
    assert 0 < aligned.item() < random.item()


def test_gradient_is_orthogonal_to_each_embedding():
    # The loss depends on each row only through its direction, so d loss / d z_k is orthogonal to z_k.
    z1, z2 = (t.requires_grad_(True) for t in _rand(6, n=5, d=7))
    g1, g2 = torch.autograd.grad(nt_xent_loss(z1, z2, temperature=0.3), (z1, z2))
    close((g1 * z1).sum(1), torch.zeros(5, dtype=DT), atol=1e-12)
    close((g2 * z2).sum(1), torch.zeros(5, dtype=DT), atol=1e-12)
    assert g1.abs().max() > 1e-3


def test_float32_small_temperature_is_stable():
    case = FIX["float32"]
    out = nt_xent_loss(case["z1"], case["z2"], temperature=case["temperature"], reduction="none")
    assert out.dtype == torch.float32
    assert bool(torch.isfinite(out).all())
    close(out, case["loss"].float(), rtol=1e-4, atol=2e-4)
    mean = nt_xent_loss(case["z1"], case["z2"], temperature=case["temperature"])
    close(mean, case["loss"].mean().float(), rtol=1e-4, atol=2e-4)
