"""Trusted checks for timedistill/1 (never enter the sandbox): the hand-computed pyramid and the properties, on
the outputs probe_multi_scale_downsample.py emitted. The default comparison with the reference's outputs has
already passed. Inputs are read from `ref` (the trusted reference run), never from `out`.

Patterns end in "*", not "[*]": fnmatch reads "[*]" as a character class matching a literal "*"."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

TOL = dict(rtol=1e-12, atol=1e-12)  # the old tests' close() default


def _array(out, key: str, dtype: str) -> np.ndarray:
    value = out.get(key)
    expect(isinstance(value, np.ndarray), f"{key}: not a tensor")
    equal(out.get(f"{key}#dtype"), dtype, what=f"{key} dtype")
    return value


@check("pyramid_matches_reference*")
def pyramid_levels(out, ref):
    # the number of levels (num_scales + 1) and list-ness were compared with the reference's by default
    n = ref["levels"][1]  # ("seq", number of levels) in the trusted run
    for m in range(n):
        want = ref[f"levels.{m}"]
        got = _array(out, f"levels.{m}", "float64")
        scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
        close(got, want, rtol=1e-12, atol=1e-12 * scale, what=f"level {m}")


@check("hand_computed_pyramid")
def hand_computed_pyramid(out, ref):
    # x = 1..7 (one series), window 2, two downsamplings:
    #   level 1: (1+2)/2, (3+4)/2, (5+6)/2 = 1.5, 3.5, 5.5   (step 7 does not fill a window, dropped)
    #   level 2: (1.5+3.5)/2 = 2.5                          (5.5 dropped)
    # marks 0..6 keep the first step of each window: level 1 -> 0, 2, 4; level 2 -> 0.
    equal(out["level0"], np.arange(1.0, 8.0).reshape(1, 7, 1), what="level 0 is x")
    close(out["level1"], [1.5, 3.5, 5.5], **TOL, what="level 1")
    close(out["level2"], [2.5], **TOL, what="level 2")
    equal(out["marks0"], np.arange(0.0, 7.0).reshape(1, 7, 1), what="marks 0 is x_mark")
    equal([out[f"marks1.{i}"] for i in range(out["marks1"][1])], [0.0, 2.0, 4.0], what="marks 1")
    equal([out[f"marks2.{i}"] for i in range(out["marks2"][1])], [0.0], what="marks 2")
    # window 3 on 1..7: level 1 = (1+2+3)/3, (4+5+6)/3 = 2, 5
    close(out["w3_level1"], [2.0, 5.0], **TOL, what="window 3, level 1")
    equal(out["w3_marks"], None, what="marks without x_mark")


@check("pooling_twice_equals_pooling_once_with_the_squared_window")
def pooling_twice(out, ref):
    for length in (36, 37, 43, 53):
        close(out[f"T{length}.twice"], out[f"T{length}.once"], **TOL, what=f"T={length}")


@check("time_average_is_preserved_when_the_length_is_divisible")
def time_average(out, ref):
    x = ref["x"]
    equal([np.shape(out[f"levels.{m}"])[1] for m in range(4)], [24, 12, 6, 3], what="level lengths")
    for m in range(4):
        close(np.mean(out[f"levels.{m}"], axis=1), x.mean(axis=1), **TOL, what=f"time average of level {m}")


@check("channels_and_batch_elements_are_pooled_independently")
def independence(out, ref):
    perm_c, perm_b = ref["perm_c"].astype(int), ref["perm_b"].astype(int)
    for m in range(3):
        close(out[f"base.{m}"][perm_b][:, :, perm_c], out[f"permuted.{m}"], **TOL, what=f"permuted level {m}")
    # a constant series stays constant at every scale
    for m in range(4):
        close(out[f"constant.{m}"], np.full_like(out[f"constant.{m}"], 4.25), **TOL, what=f"constant level {m}")


@check("gradient_weights_are_inverse_window_powers")
def gradient_weights(out, ref):
    # d(sum of level m)/dx = 1/window^m on the steps that level m covers, 0 on the dropped tail.
    for m, covered in ((0, 19), (1, 18), (2, 18)):
        expected = np.zeros((1, 19, 2))
        expected[:, :covered] = 1.0 / 3**m
        close(out[f"grad_sum_level{m}"], expected, **TOL, what=f"gradient of level {m}")


@check("float32_input_and_inputs_not_modified")
def float32_and_inputs(out, ref):
    x, mark = ref["x_before"], ref["mark_before"]  # the inputs, from the trusted run
    for m in range(3):
        _array(out, f"levels.{m}", "float32")
    equal(out["x_after"], x, what="x modified in place")
    equal(out["mark_after"], mark, what="x_mark modified in place")
    close(out["levels.2"], x.astype(np.float64).reshape(2, 4, 4, 3).mean(2).astype(np.float32), rtol=1e-6,
          atol=1e-6, what="level 2")
    equal(out["marks.2"], mark[:, ::4], what="marks 2")


@check("level_of_length_one")
def level_of_length_one(out, ref):
    equal(np.shape(out["level3"]), (1, 1, 1), what="shape of level 3")
    close(out["level3"].flatten(), ref["x"].mean().reshape(1), **TOL, what="level 3")


@check("boundary_arguments_are_valid")
def boundary_arguments(out, ref):
    x = ref["x"]
    # no downsampling: a window longer than T is fine
    equal(out["no_downsampling.0"], ("seq", 1), what="number of levels with num_scales=0")
    equal(out["no_downsampling.0.0"], x, what="level 0 is x")
    equal(out["no_downsampling.1"], None, what="marks without x_mark")
    # 4 -> 2 -> 1: the last level has one step
    equal([np.shape(out[f"last_level_one_step.{m}"])[1] for m in range(3)], [4, 2, 1], what="level lengths")
    # window 1: identity at every level
    for m in range(3):
        close(out[f"window_one.{m}"], x, **TOL, what=f"window 1, level {m}")
