"""Hidden tests for timedistill/1: multi_scale_downsample."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from timedistill.layers.multiscale import multi_scale_downsample

FIXTURES = Path(__file__).parent / "fixtures"
DT = torch.float64
CASES = torch.load(FIXTURES / "pyramid_cases.pt", weights_only=True)


def close(a: torch.Tensor, b: torch.Tensor, rtol: float = 1e-12, atol: float = 1e-12) -> None:
    torch.testing.assert_close(a, b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_pyramid_matches_reference(idx: int) -> None:
    c = CASES[idx]
    x = c["x"].clone().requires_grad_(True)
    levels, marks = multi_scale_downsample(x, c["num_scales"], c["window"], c["x_mark"])
    assert isinstance(levels, list) and len(levels) == c["num_scales"] + 1
    for got, ref in zip(levels, c["levels"]):
        assert got.shape == ref.shape and got.dtype == DT
        close(got, ref, atol=1e-12 * max(1.0, float(ref.abs().max())))
    if c["marks"] is None:
        assert marks is None
    else:
        assert isinstance(marks, list) and len(marks) == len(c["marks"])
        for got, ref in zip(marks, c["marks"]):
            assert torch.equal(got, ref)
    sum((lv * ct).sum() for lv, ct in zip(levels, c["cotangents"])).backward()
    close(x.grad, c["grad"])


def test_hand_computed_pyramid() -> None:
    # x = 1..7 (one series), window 2, two downsamplings:
    #   level 1: (1+2)/2, (3+4)/2, (5+6)/2 = 1.5, 3.5, 5.5   (step 7 does not fill a window, dropped)
    #   level 2: (1.5+3.5)/2 = 2.5                          (5.5 dropped)
    # marks 0..6 keep the first step of each window: level 1 -> 0, 2, 4; level 2 -> 0.
    x = torch.arange(1.0, 8.0, dtype=DT).view(1, 7, 1)
    mark = torch.arange(0.0, 7.0, dtype=DT).view(1, 7, 1)
    levels, marks = multi_scale_downsample(x, 2, 2, mark)
    assert torch.equal(levels[0], x)
    close(levels[1].flatten(), torch.tensor([1.5, 3.5, 5.5], dtype=DT))
    close(levels[2].flatten(), torch.tensor([2.5], dtype=DT))
    assert torch.equal(marks[0], mark)
    assert marks[1].flatten().tolist() == [0.0, 2.0, 4.0]
    assert marks[2].flatten().tolist() == [0.0]
    # window 3 on 1..7: level 1 = (1+2+3)/3, (4+5+6)/3 = 2, 5
    levels, marks = multi_scale_downsample(x, 1, 3)
    close(levels[1].flatten(), torch.tensor([2.0, 5.0], dtype=DT))
    assert marks is None


def test_pooling_twice_equals_pooling_once_with_the_squared_window() -> None:
    gen = torch.Generator().manual_seed(0)
    for length in (36, 37, 43, 53):
        x = torch.randn(2, length, 3, generator=gen, dtype=DT)
        two, _ = multi_scale_downsample(x, 2, 3)
        one, _ = multi_scale_downsample(x, 1, 9)
        close(two[2], one[1])


def test_time_average_is_preserved_when_the_length_is_divisible() -> None:
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(3, 24, 4, generator=gen, dtype=DT)
    levels, _ = multi_scale_downsample(x, 3, 2)
    assert [lv.shape[1] for lv in levels] == [24, 12, 6, 3]
    for lv in levels:
        close(lv.mean(dim=1), x.mean(dim=1))


def test_channels_and_batch_elements_are_pooled_independently() -> None:
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(4, 20, 5, generator=gen, dtype=DT)
    perm_c, perm_b = torch.tensor([3, 0, 4, 1, 2]), torch.tensor([2, 0, 3, 1])
    base, _ = multi_scale_downsample(x, 2, 2)
    permuted, _ = multi_scale_downsample(x[perm_b][:, :, perm_c], 2, 2)
    for a, b in zip(base, permuted):
        close(a[perm_b][:, :, perm_c], b)
    # a constant series stays constant at every scale
    const = torch.full((2, 13, 3), 4.25, dtype=DT)
    for lv in multi_scale_downsample(const, 3, 2)[0]:
        close(lv, torch.full_like(lv, 4.25))


def test_gradient_weights_are_inverse_window_powers() -> None:
    # d(sum of level m)/dx = 1/window^m on the steps that level m covers, 0 on the dropped tail.
    x = torch.randn(1, 19, 2, generator=torch.Generator().manual_seed(3), dtype=DT, requires_grad=True)
    levels, _ = multi_scale_downsample(x, 2, 3)  # 19 -> 6 -> 2
    for m, covered in ((0, 19), (1, 18), (2, 18)):
        (g,) = torch.autograd.grad(levels[m].sum(), x, retain_graph=True)
        expected = torch.zeros_like(x)
        expected[:, :covered] = 1.0 / 3**m
        close(g, expected)


def test_float32_input_and_inputs_not_modified() -> None:
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(2, 16, 3, generator=gen)
    mark = torch.randn(2, 16, 2, generator=gen)
    x0, m0 = x.clone(), mark.clone()
    levels, marks = multi_scale_downsample(x, 2, 2, mark)
    assert all(lv.dtype == torch.float32 for lv in levels)
    assert torch.equal(x, x0) and torch.equal(mark, m0)
    close(levels[2], x.double().view(2, 4, 4, 3).mean(2).float(), rtol=1e-6, atol=1e-6)
    assert torch.equal(marks[2], mark[:, ::4])


def test_level_of_length_one() -> None:
    x = torch.randn(1, 8, 1, generator=torch.Generator().manual_seed(5), dtype=DT)
    levels, _ = multi_scale_downsample(x, 3, 2)  # 8 -> 4 -> 2 -> 1
    assert levels[3].shape == (1, 1, 1)
    close(levels[3].flatten(), x.mean().view(1))


@pytest.mark.parametrize(
    "length,num_scales,window",
    [(8, 1, 0), (8, -1, 2), (3, 2, 2), (5, 1, 6), (1, 1, 2)],
)
def test_invalid_arguments_raise_value_error(length: int, num_scales: int, window: int) -> None:
    x = torch.zeros(2, length, 3, dtype=DT)
    with pytest.raises(ValueError):
        multi_scale_downsample(x, num_scales, window)


def test_boundary_arguments_are_valid() -> None:
    x = torch.randn(2, 4, 3, generator=torch.Generator().manual_seed(6), dtype=DT)
    levels, marks = multi_scale_downsample(x, 0, 5)  # no downsampling: a window longer than T is fine
    assert len(levels) == 1 and torch.equal(levels[0], x) and marks is None
    levels, _ = multi_scale_downsample(x, 2, 2)      # 4 -> 2 -> 1: the last level has one step
    assert [lv.shape[1] for lv in levels] == [4, 2, 1]
    levels, _ = multi_scale_downsample(x, 2, 1)      # window 1: identity at every level
    for lv in levels:
        close(lv, x)
