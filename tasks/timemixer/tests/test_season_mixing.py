"""Hidden tests for timemixer/1: MultiScaleSeasonMixing.forward (bottom-up season mixing)."""

from pathlib import Path

import pytest
import torch

from timemixer.layers.mixing import MultiScaleSeasonMixing

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "season_cases.pt", weights_only=True)
ATOL, RTOL = 1e-9, 1e-7


def assert_close(got, expected, atol, rtol):
    """Shape check plus |got - expected| <= atol + rtol * |expected| elementwise."""
    assert isinstance(got, torch.Tensor), type(got)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert torch.allclose(got.to(expected.dtype), expected, atol=atol, rtol=rtol), (
        f"max abs diff {(got.to(expected.dtype) - expected).abs().max().item():.3e}"
    )


def build(case) -> MultiScaleSeasonMixing:
    seq_len, window, m, _, _ = case["config"]
    module = MultiScaleSeasonMixing(seq_len, window, m).double()
    module.load_state_dict(case["state_dict"])
    return module


def random_module(seq_len=16, window=2, m=2, seed=0):
    torch.manual_seed(seed)
    module = MultiScaleSeasonMixing(seq_len, window, m).double()
    with torch.no_grad():
        for p in module.parameters():
            p.mul_(2.0)
    return module


def random_inputs(module, batch, d_model, seed=1):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(batch, t, d_model, generator=g, dtype=torch.float64) for t in module.lengths]


def assert_lists_close(got, expected):
    assert isinstance(got, (list, tuple))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        assert_close(g, e, atol=ATOL, rtol=RTOL)


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_outputs_match_reference(idx):
    case = CASES[idx]
    module = build(case)
    with torch.no_grad():
        out = module([x.clone() for x in case["inputs"]])
    assert_lists_close(out, case["outputs"])


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_gradients_match_reference(idx):
    case = CASES[idx]
    module = build(case)
    leaf = [x.clone().requires_grad_(True) for x in case["inputs"]]
    out = module(leaf)
    objective = sum((o * c).sum() for o, c in zip(out, case["cotangents"]))
    params = dict(module.named_parameters())
    grads = torch.autograd.grad(objective, leaf + list(params.values()), allow_unused=True)
    for g, e in zip(grads[: len(leaf)], case["input_grads"]):
        assert g is not None
        assert_close(g, e, atol=ATOL, rtol=RTOL)
    for name, g in zip(params, grads[len(leaf) :]):
        assert g is not None, f"no gradient reaches {name}"
        assert_close(g, case["param_grads"][name], atol=ATOL, rtol=RTOL)


def test_hand_checked_two_step_mixing():
    # seq_len 4, window 2, M = 2: lengths 4, 2, 1; one sample, one channel.
    module = MultiScaleSeasonMixing(4, 2, 2).double()
    down0, down1 = module.down_mixing
    with torch.no_grad():
        # Down_0: W1 averages neighbouring pairs, no bias; second linear = identity.
        down0[0].weight.copy_(torch.tensor([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]], dtype=torch.float64))
        down0[0].bias.zero_()
        down0[2].weight.copy_(torch.eye(2))
        down0[2].bias.zero_()
        # Down_1: W1 picks the second entry, bias Phi(-1); W2 = 2, b2 = 0.5.
        down1[0].weight.copy_(torch.tensor([[0.0, 1.0]], dtype=torch.float64))
        down1[0].bias.fill_(0.15865525393145707)  # Phi(-1)
        down1[2].weight.fill_(2.0)
        down1[2].bias.fill_(0.5)
    s0 = torch.tensor([1.0, 3.0, -2.0, 0.0], dtype=torch.float64).view(1, 4, 1)
    s1 = torch.tensor([0.0, 1.0], dtype=torch.float64).view(1, 2, 1)
    s2 = torch.tensor([0.25], dtype=torch.float64).view(1, 1, 1)
    with torch.no_grad():
        out = module([s0, s1, s2])
    # By hand, GELU(x) = x * Phi(x) with Phi the standard normal CDF:
    # pair means of s0 = (2, -1) -> GELU = (2 Phi(2), -Phi(-1)) = (1.9544997361036416, -0.15865525393145707)
    # hat s1 = s1 + that = (1.9544997361036416, 1 - Phi(-1) = Phi(1) = 0.8413447460685429)
    # Down_1(hat s1): W1 hat s1 + b1 = Phi(1) + Phi(-1) = 1 -> GELU(1) = Phi(1) -> 2 Phi(1) + 0.5
    # hat s2 = 0.25 + 2 * 0.8413447460685429 + 0.5 = 2.4326894921370856
    # (mixing from the unmixed s1 instead would give GELU(1.1587) and a different value)
    assert_close(out[0].flatten(), s0.flatten(), atol=0, rtol=0)
    assert_close(
        out[1].flatten(),
        torch.tensor([1.9544997361036416, 0.8413447460685429], dtype=torch.float64),
        atol=1e-12,
        rtol=0,
    )
    assert_close(
        out[2].flatten(), torch.tensor([2.4326894921370856], dtype=torch.float64), atol=1e-12, rtol=0
    )


def test_finest_scale_passes_through_and_shapes_kept():
    module = random_module(seq_len=20, window=2, m=3)
    xs = random_inputs(module, batch=2, d_model=3)
    with torch.no_grad():
        out = module(xs)
    assert len(out) == 4
    assert [o.shape for o in out] == [x.shape for x in xs]
    assert_close(out[0], xs[0], atol=0, rtol=0)
    for o, x in zip(out[1:], xs[1:]):
        assert not torch.allclose(o, x)


def test_bottom_up_dependency_structure():
    # hat s_m depends on s_k exactly for k <= m (fine -> coarse information flow).
    module = random_module(seq_len=16, window=2, m=3)
    xs = [x.requires_grad_(True) for x in random_inputs(module, batch=2, d_model=2)]
    out = module(xs)
    for m, o in enumerate(out):
        grads = torch.autograd.grad(o.sum(), xs, allow_unused=True, retain_graph=True)
        for k, g in enumerate(grads):
            if k <= m:
                assert g is not None and g.abs().sum() > 0, (m, k)
            else:
                assert g is None or torch.count_nonzero(g) == 0, (m, k)


def test_mixing_is_per_channel_and_per_sample():
    module = random_module(seq_len=16, window=2, m=2, seed=3)
    xs = random_inputs(module, batch=3, d_model=4, seed=4)
    with torch.no_grad():
        base = module([x.clone() for x in xs])
        perturbed_in = [x.clone() for x in xs]
        perturbed_in[0][1, :, 2] += 1.0  # sample 1, channel 2, finest scale
        perturbed = module(perturbed_in)
        single = module([x[2:3].clone() for x in xs])  # a batch of one
    for b, p, s in zip(base, perturbed, single):
        changed = (b - p).abs() > 0
        changed[1, :, 2] = False
        assert not changed.any(), "a perturbation leaked across channels or samples"
        assert_close(s, b[2:3], atol=1e-12, rtol=0)
    assert (base[1][1, :, 2] - perturbed[1][1, :, 2]).abs().max() > 0


def test_zero_mixing_layers_give_identity():
    module = random_module(seq_len=12, window=2, m=2, seed=5)
    with torch.no_grad():
        for layer in module.down_mixing:
            layer[2].weight.zero_()
            layer[2].bias.zero_()
        xs = random_inputs(module, batch=2, d_model=3, seed=6)
        out = module(xs)
    for o, x in zip(out, xs):
        assert_close(o, x, atol=0, rtol=0)


def test_inputs_not_modified():
    module = random_module(seq_len=16, window=2, m=2, seed=7)
    xs = random_inputs(module, batch=2, d_model=3, seed=8)
    copies = [x.clone() for x in xs]
    with torch.no_grad():
        module(xs)
    for x, c in zip(xs, copies):
        assert_close(x, c, atol=0, rtol=0)
