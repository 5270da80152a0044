"""Probe for timedistill/1: `multi_scale_downsample`. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox) at the old tests'
tolerance (rtol = atol = 1e-12; float32: 1e-6); the pyramid's levels in `matches_reference` are compared in the
check file instead, with the old data-dependent tolerance. The trusted checks in check_multi_scale_downsample.py
hold the hand-computed pyramid and the properties. One case per old pytest test."""

from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from timedistill.layers.multiscale import multi_scale_downsample

DT = torch.float64
CASES = torch.load(Path(__file__).parent / "fixtures" / "pyramid_cases.pt", weights_only=True)
TOL = dict(rtol=1e-12, atol=1e-12)
EXACT = {"compare": "exact", "dtype": False}  # torch.equal in the old tests: values and shape, any dtype


@case(params=range(len(CASES)), **TOL, outputs={"levels.*": {"compare": "none"}, "marks.*": EXACT})
def pyramid_matches_reference(idx):
    # levels: atol = 1e-12 * max(1, max |reference level|), in the check file (the reference's levels are data)
    c = CASES[idx]
    x = c["x"].clone().requires_grad_(True)
    levels, marks = multi_scale_downsample(x, c["num_scales"], c["window"], c["x_mark"])
    out = {"levels_is_list": isinstance(levels, list), "levels": levels,
           "marks_is_list": isinstance(marks, list), "marks": marks}
    sum((lv * ct).sum() for lv, ct in zip(levels, c["cotangents"])).backward()
    # never emit None where the reference has a tensor (see NOTES.md, harness bug): a flag, then zeros
    out["grad_is_none"] = x.grad is None
    out["grad"] = torch.zeros_like(x) if x.grad is None else x.grad
    return out


@case(**TOL, outputs={"marks*": EXACT, "level0": EXACT, "w3_marks": {"compare": "exact"}})
def hand_computed_pyramid():
    # x = 1..7 (one series), window 2, two downsamplings; then window 3, one downsampling, no marks
    x = torch.arange(1.0, 8.0, dtype=DT).view(1, 7, 1)
    mark = torch.arange(0.0, 7.0, dtype=DT).view(1, 7, 1)
    levels, marks = multi_scale_downsample(x, 2, 2, mark)
    w3_levels, w3_marks = multi_scale_downsample(x, 1, 3)
    return {"level0": levels[0], "level1": levels[1].flatten(), "level2": levels[2].flatten(),
            "marks0": marks[0], "marks1": marks[1].flatten().tolist(), "marks2": marks[2].flatten().tolist(),
            "w3_level1": w3_levels[1].flatten(), "w3_marks": w3_marks}


@case(**TOL)
def pooling_twice_equals_pooling_once_with_the_squared_window():
    gen = torch.Generator().manual_seed(0)
    out = {}
    for length in (36, 37, 43, 53):
        x = torch.randn(2, length, 3, generator=gen, dtype=DT)
        two, _ = multi_scale_downsample(x, 2, 3)
        one, _ = multi_scale_downsample(x, 1, 9)
        out[f"T{length}.twice"], out[f"T{length}.once"] = two[2], one[1]
    return out


@case(**TOL)
def time_average_is_preserved_when_the_length_is_divisible():
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(3, 24, 4, generator=gen, dtype=DT)
    levels, _ = multi_scale_downsample(x, 3, 2)
    return {"x": x, "levels": levels}


@case(**TOL)
def channels_and_batch_elements_are_pooled_independently():
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(4, 20, 5, generator=gen, dtype=DT)
    perm_c, perm_b = torch.tensor([3, 0, 4, 1, 2]), torch.tensor([2, 0, 3, 1])
    base, _ = multi_scale_downsample(x, 2, 2)
    permuted, _ = multi_scale_downsample(x[perm_b][:, :, perm_c], 2, 2)
    const = torch.full((2, 13, 3), 4.25, dtype=DT)
    return {"perm_c": perm_c, "perm_b": perm_b, "base": base, "permuted": permuted,
            "constant": multi_scale_downsample(const, 3, 2)[0]}


@case(**TOL)
def gradient_weights_are_inverse_window_powers():
    x = torch.randn(1, 19, 2, generator=torch.Generator().manual_seed(3), dtype=DT, requires_grad=True)
    levels, _ = multi_scale_downsample(x, 2, 3)  # 19 -> 6 -> 2
    out = {}
    for m in range(3):
        (out[f"grad_sum_level{m}"],) = torch.autograd.grad(levels[m].sum(), x, retain_graph=True)
    return out


@case(rtol=1e-6, atol=1e-6, outputs={"x_*": EXACT, "mark_*": EXACT, "marks.*": EXACT})
def float32_input_and_inputs_not_modified():
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(2, 16, 3, generator=gen)
    mark = torch.randn(2, 16, 2, generator=gen)
    x0, m0 = x.clone(), mark.clone()
    levels, marks = multi_scale_downsample(x, 2, 2, mark)
    return {"x_before": x0, "mark_before": m0, "x_after": x, "mark_after": mark, "levels": levels, "marks": marks}


@case(**TOL)
def level_of_length_one():
    x = torch.randn(1, 8, 1, generator=torch.Generator().manual_seed(5), dtype=DT)
    levels, _ = multi_scale_downsample(x, 3, 2)  # 8 -> 4 -> 2 -> 1
    return {"x": x, "level3": levels[3]}


INVALID = [(8, 1, 0), (8, -1, 2), (3, 2, 2), (5, 1, 6), (1, 1, 2)]  # (length, num_scales, window)


@case(params=INVALID, ids=[f"{t}-{m}-{w}" for t, m, w in INVALID])
def invalid_arguments_raise_value_error(arguments):
    length, num_scales, window = arguments
    return {"result": multi_scale_downsample(torch.zeros(2, length, 3, dtype=DT), num_scales, window)}


@case(**TOL, outputs={"x": EXACT, "no_downsampling.*": EXACT})
def boundary_arguments_are_valid():
    x = torch.randn(2, 4, 3, generator=torch.Generator().manual_seed(6), dtype=DT)
    return {"x": x,
            "no_downsampling": multi_scale_downsample(x, 0, 5),  # a window longer than T is fine
            "last_level_one_step": multi_scale_downsample(x, 2, 2)[0],  # 4 -> 2 -> 1
            "window_one": multi_scale_downsample(x, 2, 1)[0]}  # identity at every level
