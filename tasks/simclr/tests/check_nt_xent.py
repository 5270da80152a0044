"""Trusted checks for simclr/1 (never enter the sandbox): hand-checked values and the properties of NT-Xent, on the
outputs probe_nt_xent.py emitted. Inputs and trusted values are read from the reference's run (`ref`).

The old tests compared with `close(actual, expected, rtol=1e-7, atol=1e-9)`: a tensor of the expected shape, values
within the tolerances (dtype converted, so not compared). `tclose` below is that helper."""
import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

RTOL, ATOL = 1e-7, 1e-9


def tclose(out, key: str, want, rtol: float = RTOL, atol: float = ATOL) -> None:
    """The old `close`: out[key] is a tensor with want's shape (a scalar want: a 0-d tensor), values close.

    The shape is the one the probe emitted as `KEY.shape` (the array itself comes back 1-d when it is 0-d)."""
    got = out[key]
    expect(isinstance(got, np.ndarray) and f"{key}#dtype" in out, f"{key}: not a tensor")
    shape = out.get(f"{key}.shape")
    expect(isinstance(shape, tuple) and shape[0] == "seq", f"{key}: no shape")
    equal([out.get(f"{key}.shape.{i}") for i in range(shape[1])], list(np.shape(want)), what=f"{key} shape")
    got = got.reshape(np.shape(want))
    expect(not np.isnan(got).any(), f"{key}: NaN values")  # assert_close never takes NaN for NaN
    close(got, want, rtol=rtol, atol=atol, what=key)


def scalar(out, key: str) -> float:
    """The old `.item()` of a one-element tensor, taken in the probe: a Python float."""
    value = out[key]
    expect(isinstance(value, float), f"{key}: not a number ({type(value).__name__})")
    return value


# ---------------------------------------------------------------- values checked by hand


@check("hand_values")
def hand_values(out, ref):
    # Views identical, the two examples orthogonal. Anchor e1 (tau = 1): positive e1 (cos 1), the
    # other two candidates e2, e2 (cos 0); self excluded. Loss = -log(e / (e + 1 + 1)) = log(e + 2) - 1.
    # Every anchor is alike, so the mean is the same: 0.5514447139320509.
    tclose(out, "identical_tau1", np.float64(0.5514447139320509))
    # Same with tau = 0.5: logits 2 (positive), 0, 0: log(e^2 + 2) - 2 = 0.23954476622188414.
    tclose(out, "identical_tau05", np.float64(0.23954476622188414))
    # Second views swapped: anchor e1 has positive e2 (cos 0) and candidates e2 (0), e1 (1):
    # loss = log(1 + 1 + e) - 0 = 1.5514447139320509 for every anchor; "sum" over 2N = 4 anchors.
    tclose(out, "swapped_none", np.full((4,), 1.5514447139320509))
    tclose(out, "swapped_sum", np.float64(4 * 1.5514447139320509))


@check("batch_of_one_is_zero")
def batch_of_one_is_zero(out, ref):
    # With N = 1 each anchor has a single candidate, its positive: softmax over one logit = 1.
    tclose(out, "loss", np.zeros(2), atol=1e-12)


# ---------------------------------------------------------------- properties


@check("none_reduction_layout")
def none_reduction_layout(out, ref):
    none = out["none"]
    expect(isinstance(none, np.ndarray) and none.shape == (10,) and out["none.shape"] == ("seq", 1),
           "reduction='none': not one loss per anchor (10,)")
    # swapping the views swaps the two halves (entries 0..N-1 are the z1 anchors)
    tclose(out, "swapped", np.concatenate([none[5:], none[:5]]))
    tclose(out, "mean", np.float64(none.mean()))
    tclose(out, "sum", np.float64(none.sum()))
    # anchor 0 of the first view, written out: its logits against all other views
    z = np.concatenate([ref["z1"], ref["z2"]])
    z = z / np.linalg.norm(z, axis=1, keepdims=True)
    logits = z[0] @ z.T / 0.4
    rest = logits[1:]
    logsumexp = rest.max() + math.log(np.exp(rest - rest.max()).sum())
    close(none[0], -(logits[5] - logsumexp), rtol=RTOL, atol=ATOL, what="anchor 0 written out")


@check("invariant_to_scale_rotation_and_permutation")
def invariant(out, ref):
    base = out["base"]
    expect(isinstance(base, np.ndarray) and base.ndim == 1, "reduction='none': not a vector of losses")
    tclose(out, "scaled", base)  # cosine similarity: per-row scales change nothing
    tclose(out, "rotated", base)
    perm = np.asarray(ref["perm"]).astype(int)
    tclose(out, "permuted", np.concatenate([base[:7][perm], base[7:][perm]]))


@check("temperature_limits")
def temperature_limits(out, ref):
    # tau -> infinity: all logits -> 0, each anchor is a uniform guess among 2N - 1 = 11 views.
    tclose(out, "tau_1e8", np.float64(math.log(11)), atol=1e-7)
    # identical views of mutually orthogonal examples: loss -> 0 as tau -> 0.
    small = scalar(out, "tau_small")
    expect(0 <= small < 1e-20, f"tau = 0.02 with perfect views: loss {small!r} not in [0, 1e-20)")
    expect(scalar(out, "eye_tau0.5") > scalar(out, "eye_tau0.2"), "the loss does not fall with the temperature")


@check("loss_is_positive_and_rewards_alignment")
def positive_and_alignment(out, ref):
    aligned, rand = scalar(out, "aligned"), scalar(out, "random")
    expect(0 < aligned < rand, f"not 0 < aligned ({aligned!r}) < random ({rand!r})")


@check("gradient_is_orthogonal_to_each_embedding")
def gradient_orthogonal(out, ref):
    # The loss depends on each row only through its direction, so d loss / d z_k is orthogonal to z_k.
    for k in ("1", "2"):
        g, z = out[f"grad_z{k}"], ref[f"z{k}"]
        expect(isinstance(g, np.ndarray) and g.shape == z.shape, f"grad z{k}: shape")
        close((g * z).sum(1), np.zeros(5), rtol=RTOL, atol=1e-12, what=f"grad z{k} . z{k}")
    expect(np.abs(out["grad_z1"]).max() > 1e-3, "gradient w.r.t. z1 vanishes")


@check("float32_small_temperature_is_stable")
def float32_small_temperature(out, ref):
    equal(out.get("out#dtype"), "float32", what="dtype of the loss of float32 inputs")
    finite(out["out"], "loss")
    want = ref["loss_f64"]  # the reference's loss of the same numbers in float64
    tclose(out, "out", want, rtol=1e-4, atol=2e-4)
    tclose(out, "mean", np.float64(want.mean()), rtol=1e-4, atol=2e-4)
