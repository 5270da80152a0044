"""Trusted checks for adalora/1 (never enter the sandbox): the differential outputs and gradients (with the
old tolerance scaled by the reference's magnitude), the hand-computed value and the properties of
SVDLinear.forward, on the outputs probe_svdlinear_forward.py emitted. Inputs are read from the reference's
run (`ref`)."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import CheckFailed, check, close, equal, expect, finite

# fnmatch reads "[...]" as a character class, so parametrised cases are matched as "name*"

RTOL, ATOL = 1e-10, 1e-10


def tensor(out, ref, key: str) -> np.ndarray:
    """A float64 tensor output, as the reference's (torch.testing.assert_close also compares dtypes)."""
    value = out.get(key)
    if not isinstance(value, np.ndarray):
        raise CheckFailed(f"{key}: not a tensor ({type(value).__name__})")
    equal(out.get(f"{key}#dtype"), ref[f"{key}#dtype"], what=f"{key} dtype")
    return value


@check("output_and_gradients_match_reference*")
def output_and_gradients(out, ref):
    # Relative tolerance scaled for the extreme-value case, where outputs reach ~1e8.
    for key in ["out"] + sorted(k for k in ref if k.startswith("grad.") and "#" not in k):
        want = ref[key]
        got = tensor(out, ref, key)
        equal(tuple(got.shape), tuple(want.shape), what=f"{key} shape")
        close(got, want, rtol=RTOL, atol=ATOL * max(1.0, float(np.abs(want).max(initial=0.0))), what=key)
    # The pre-trained part is frozen: no gradient reaches it.
    equal(out["weight_grad_is_none"], True, what="no gradient on the frozen weight")
    equal(out["bias_grad_is_none"], True, what="no gradient on the frozen bias")


@check("hand_computed_value")
def hand_computed_value(out, ref):
    # d_in = 2, d_out = 1, r = 2, alpha = 4 (scaling 4), ranknum = 2.
    # Frozen part: W x + b = 1*3 + (-2)*1 + 0.5 = 1.5.
    # A * E = [[1,0]*2, [1,1]*(-1)] = [[2,0],[-1,-1]];  x (A*E)^T = [6, -4];  times B^T = [1,3]: 6 - 12 = -6.
    # Adapter: -6 * 4 / (2 + 1e-5) = -11.99994000029999...;  total = 1.5 - 11.9999400003 = -10.4999400003.
    close(tensor(out, ref, "out"), [[-10.49994000029999985]], rtol=0, atol=1e-11, what="output")


def _frozen(ref) -> np.ndarray:
    return ref["x"] @ ref["w"].T + ref["bias"]


@check("zero_singular_values_give_the_frozen_layer*")
def zero_singular_values(out, ref):
    close(tensor(out, ref, "out"), _frozen(ref), rtol=0, atol=1e-12, what="output with lambda = 0")


@check("equals_linear_layer_with_svd_form_weight*")
def svd_form_weight(out, ref):
    # paper.md: the layer is a linear layer with weight W0 + alpha / (ranknum + eps) * B diag(E) A.
    delta = ref["B"] @ np.diag(ref["E"].reshape(-1)) @ ref["A"]
    w = ref["w"] + delta * 5.0 / (2.5 + ref["eps"])
    close(tensor(out, ref, "out"), ref["x"] @ w.T + ref["bias"], rtol=RTOL, atol=ATOL, what="output")


@check("triplets_contribute_additively")
def triplets(out, ref):
    pieces = [out[f"pieces.{i}"] for i in range(4)]
    close(out["full"], out["base"] + sum(pieces), rtol=RTOL, atol=ATOL, what="sum of the rank-one pieces")
    # Each piece is rank one: it is proportional to column i of B.
    b = ref["B"]
    for i, piece in enumerate(pieces):
        coeff = piece @ b[:, i] / b[:, i].dot(b[:, i])
        close(piece, coeff[:, None] * b[:, i][None, :], rtol=RTOL, atol=ATOL, what=f"piece {i} is rank one")


@check("adapter_part_is_inversely_proportional_to_ranknum_plus_eps")
def inverse_ranknum(out, ref):
    eps, base = ref["eps"], out["base"]
    parts = [(out[f"ranknum{r}"] - base) * (r + eps) for r in (3.0, 1.0, 0.5)]
    close(parts[1], parts[0], rtol=RTOL, atol=ATOL, what="ranknum 1 vs 3")
    close(parts[2], parts[0], rtol=RTOL, atol=ATOL, what="ranknum 0.5 vs 3")
    # ranknum = 0 (all triplets pruned but lambda not yet zeroed) stays finite thanks to eps.
    finite(out["ranknum0.0"], "output at ranknum 0")
    close(out["ranknum0.0"], base + parts[0] / eps, rtol=1e-9, atol=ATOL, what="output at ranknum 0")


@check("dropout_applies_to_the_adapter_branch_only")
def dropout_adapter_only(out, ref):
    base = _frozen(ref)
    close(out["zero_mask"], base, rtol=0, atol=1e-12, what="output with the adapter input dropped")
    # A mask of 2 doubles the adapter part and leaves the frozen part alone.
    close(out["doubled"] - base, 2.0 * (out["plain"] - base), rtol=RTOL, atol=ATOL, what="doubled adapter part")


@check("dropout_is_inactive_in_eval_mode_and_active_in_train_mode")
def dropout_modes(out, ref):
    close(out["eval"], out["no_dropout"], rtol=RTOL, atol=ATOL, what="eval mode")
    train = tensor(out, ref, "train")
    equal(tuple(train.shape), tuple(out["no_dropout"].shape), what="train-mode output shape")
    # torch.allclose defaults: rtol 1e-5, atol 1e-8
    expect(not np.allclose(train, out["no_dropout"], rtol=1e-5, atol=1e-8), "dropout is inactive in train mode")


@check("layer_tensors_are_not_modified")
def not_modified(out, ref):
    for key in ref:
        if key.startswith("state_after.") and "#" not in key:
            equal(out[key], ref[key], what=key[len("state_after."):])
    equal(out["ranknum_grad_is_none"], True, what="ranknum has no gradient")
    equal(out["ranknum_requires_grad"], False, what="ranknum does not require grad")


@check("float32_layer")
def float32_layer(out, ref):
    equal(out["out32#dtype"], "float32", what="float32 output dtype")
    close(out["out32"].astype(np.float64), out["out64"], rtol=1e-5, atol=1e-5, what="float32 vs float64")
