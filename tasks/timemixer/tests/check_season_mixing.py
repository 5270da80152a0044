"""Trusted checks for timemixer/1 (never enter the sandbox): the hand-checked mixing and the structural properties,
on the outputs probe_season_mixing.py emitted. The default comparison with the reference's outputs has already
passed. Inputs are read from `ref` (the trusted reference run), never from `out`.

Patterns end in "*", not "[*]": fnmatch reads "[*]" as a character class matching a literal "*"."""

import numpy as np

from lmrbench.checks import check, close, equal, expect


def _levels(values, key: str) -> list:
    """The emitted list `key` as a list of arrays."""
    marker = values.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: not a list")
    return [values[f"{key}.{i}"] for i in range(marker[1])]


@check("outputs_match_reference*")
def returns_a_sequence_of_tensors(out, ref):
    equal(out["is_sequence"], True, what="forward returns a list or tuple")
    equal(out["all_tensors"], True, what="forward returns tensors")


@check("gradients_match_reference*")
def gradients_reach_everything(out, ref):
    # every input and every parameter gets a gradient (autograd does not report it as unused)
    flags = [v for k, v in out.items() if k.startswith(("input_grad_is_none.", "param_grad_is_none."))]
    expect(len(flags) > 0 and not any(flags), "a gradient does not reach an input or a parameter")


@check("hand_checked_two_step_mixing")
def hand_checked(out, ref):
    s0 = [1.0, 3.0, -2.0, 0.0]  # the finest input (the probe's s0)
    # By hand, GELU(x) = x * Phi(x) with Phi the standard normal CDF:
    # pair means of s0 = (2, -1) -> GELU = (2 Phi(2), -Phi(-1)) = (1.9544997361036416, -0.15865525393145707)
    # hat s1 = s1 + that = (1.9544997361036416, 1 - Phi(-1) = Phi(1) = 0.8413447460685429)
    # Down_1(hat s1): W1 hat s1 + b1 = Phi(1) + Phi(-1) = 1 -> GELU(1) = Phi(1) -> 2 Phi(1) + 0.5
    # hat s2 = 0.25 + 2 * 0.8413447460685429 + 0.5 = 2.4326894921370856
    # (mixing from the unmixed s1 instead would give GELU(1.1587) and a different value)
    out0, out1, out2 = _levels(out, "outputs")
    close(out0, s0, rtol=0, atol=0, what="finest scale")
    close(out1, [1.9544997361036416, 0.8413447460685429], rtol=0, atol=1e-12, what="hat s1")
    close(out2, [2.4326894921370856], rtol=0, atol=1e-12, what="hat s2")


@check("finest_scale_passes_through_and_shapes_kept")
def finest_passes_through(out, ref):
    xs, got = _levels(ref, "inputs"), _levels(out, "outputs")
    equal(len(got), 4, what="number of scales")
    equal([np.shape(o) for o in got], [np.shape(x) for x in xs], what="shapes")
    close(got[0], xs[0], rtol=0, atol=0, what="finest scale")
    for m in range(1, 4):  # torch.allclose defaults: rtol 1e-5, atol 1e-8
        expect(not np.allclose(got[m], xs[m], rtol=1e-5, atol=1e-8), f"scale {m} is not mixed")


@check("bottom_up_dependency_structure")
def dependency_structure(out, ref):
    # hat s_m depends on s_k exactly for k <= m (fine -> coarse information flow).
    for m in range(4):
        for k in range(4):
            g = out[f"d_out{m}_d_in{k}"]
            if k <= m:
                expect(np.abs(g).sum() > 0, f"output {m} does not depend on input {k}")
            else:
                expect(np.count_nonzero(g) == 0, f"output {m} depends on input {k}")


@check("mixing_is_per_channel_and_per_sample")
def per_channel_and_sample(out, ref):
    base, perturbed, single = _levels(out, "base"), _levels(out, "perturbed"), _levels(out, "single")
    equal(len(perturbed), len(base), what="number of scales")
    equal(len(single), len(base), what="number of scales, batch of one")
    for b, p, s in zip(base, perturbed, single, strict=True):
        changed = np.abs(b - p) > 0
        changed[1, :, 2] = False
        expect(not changed.any(), "a perturbation leaked across channels or samples")
        close(s, b[2:3], rtol=0, atol=1e-12, what="batch of one")
    expect(np.abs(base[1][1, :, 2] - perturbed[1][1, :, 2]).max() > 0, "the perturbation does not reach scale 1")


@check("zero_mixing_layers_give_identity")
def zero_mixing(out, ref):
    xs, got = _levels(ref, "inputs"), _levels(out, "outputs")
    equal(len(got), len(xs), what="number of scales")
    for m, (o, x) in enumerate(zip(got, xs, strict=True)):
        close(o, x, rtol=0, atol=0, what=f"scale {m}")


@check("inputs_not_modified")
def inputs_not_modified(out, ref):
    before, after = _levels(ref, "before"), _levels(out, "after")
    for m, (x, c) in enumerate(zip(after, before, strict=True)):
        close(x, c, rtol=0, atol=0, what=f"input {m}")
