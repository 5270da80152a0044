"""Trusted checks for ergo/1 (never enter the sandbox): hand-checked values and the loss's properties, on the
outputs probe_focal_loss.py emitted. The default comparison with the reference's outputs has already passed."""
import numpy as np

from lmrbench.checks import check, close, equal, expect, finite


def shape(out: dict, key: str) -> tuple:
    """The shape the probe recorded for output `key` (under `shapes.<key>`, a list of ints)."""
    marker = out.get(f"shapes.{key}")
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: no shape recorded (not a tensor?)")
    return tuple(out.get(f"shapes.{key}.{i}") for i in range(int(marker[1])))


def value(out: dict, key: str) -> np.ndarray:
    """Output `key` with its recorded shape."""
    return np.reshape(out[key], shape(out, key))


def tclose(out: dict, key: str, want, rtol: float = 1e-7, atol: float = 1e-10) -> None:
    """The old tests' `close`: a tensor of the expected shape, values within the tolerance."""
    expect(f"{key}#dtype" in out, f"{key}: not a tensor")
    want = np.asarray(want, dtype=np.float64)
    equal(shape(out, key), want.shape, what=f"{key} shape")
    close(np.reshape(out[key], want.shape), want, rtol=rtol, atol=atol, what=key)


# --------------------------------------------------------------------------- differential


@check("matches_reference*")
def keeps_dtype(out, ref):
    equal(out["loss#dtype"], "float64", what="loss dtype (the logits are float64)")
    tclose(out, "loss", value(ref, "loss"))
    if "grad" in ref:
        tclose(out, "grad", value(ref, "grad"), rtol=1e-6, atol=1e-10)


# --------------------------------------------------------------------------- by hand


@check("hand_values")
def hand_values(out, ref):
    # alpha = 0.25, gamma = 2; loss = -alpha_t (1 - p_t)^2 log p_t with p = sigmoid(logit).
    # logit 0, y = 1: p_t = 0.5, alpha_t = 0.25 -> 0.25 * 0.25 * ln 2 = 0.04332169878499658
    # logit 0, y = 0: p_t = 0.5, alpha_t = 0.75 -> 0.75 * 0.25 * ln 2 = 0.12996509635498973
    # logit ln 3 (p = 0.75), y = 1: p_t = 0.75 -> 0.25 * 0.0625 * ln(4/3) = 0.004495032382059076
    # logit ln 3, y = 0: p_t = 0.25, alpha_t = 0.75 -> 0.75 * 0.5625 * ln 4 = 0.5848429335974539
    expected = np.array([0.04332169878499658, 0.12996509635498973, 0.004495032382059076, 0.5848429335974539])
    tclose(out, "none", expected)
    tclose(out, "sum", expected.sum())
    tclose(out, "mean", expected.mean())
    # the defaults are alpha = 0.25, gamma = 2, reduction = "mean"
    tclose(out, "defaults", expected.mean())
    # confidently wrong: logit -100, y = 1 -> 0.25 * (1 - e^-100)^2 * (100 + log(1 + e^-100)) = 25.0
    tclose(out, "confidently_wrong", [25.0])


# --------------------------------------------------------------------------- properties


@check("gamma_zero_is_cross_entropy")
def gamma_zero(out, ref):
    bce, w = ref["bce"], ref["weight"]  # computed from the inputs by the reference run
    tclose(out, "no_alpha", bce)
    # with alpha: class-weighted cross-entropy
    tclose(out, "alpha", w * bce)
    tclose(out, "alpha_mean", (w * bce).mean())


@check("focusing_down_weights_easy_examples")
def focusing(out, ref):
    prev = out["gamma0.0"]
    for gamma in (0.5, 1.0, 2.0, 5.0):
        cur = out[f"gamma{gamma}"]
        expect(bool(np.all(cur < prev)), f"gamma={gamma}: the loss does not fall as gamma grows")
        prev = cur
    ratio = out["ratio"]
    # (1 - p_t)^2: tiny for the easy example (p_t ~ 0.982), close to 1 for the hard one (p_t ~ 0.047)
    expect(ratio[0] < 1e-3 and ratio[3] > 0.9, f"ratio {ratio.tolist()}")
    logits = np.array([4.0, 1.0, -0.5, -3.0])
    tclose(out, "ratio", (1.0 / (1.0 + np.exp(logits))) ** 2)  # sigmoid(-logits)^2


@check("extreme_logits_are_finite_and_accurate")
def extreme(out, ref):
    for dtype in ("float32", "float64"):
        equal(out[f"{dtype}#dtype"], dtype, what="loss keeps the dtype of the logits")
        finite(out[dtype], dtype)
        # confidently right -> ~0; confidently wrong -> alpha_t * 100
        tclose(out, dtype, [0.0, 0.0, 75.0, 25.0, 0.0, 0.0], rtol=1e-6, atol=1e-6)
    finite(out["grad"], "grad")


@check("mask_excludes_padding")
def mask(out, ref):
    m = np.asarray(ref["mask"], dtype=bool)
    full = out["full"]
    tclose(out, "none", np.where(m, full, 0.0))
    tclose(out, "mean", full[m].sum() / m.sum())
    tclose(out, "sum", full[m].sum())
    # large values at padding positions must not change anything
    tclose(out, "garbage_mean", full[m].sum() / m.sum())
    # no valid element: the mean is 0, not NaN; one valid element: its own loss
    tclose(out, "empty_mean", 0.0)
    tclose(out, "one_mean", full[1, 2])


@check("target_dtypes_agree")
def target_dtypes(out, ref):
    tclose(out, "bool", out["long"])
    tclose(out, "float", out["long"])


@check("gradient_direction_and_mask")
def gradient_direction(out, ref):
    grad = out["grad"]
    targets, m = ref["targets"], np.asarray(ref["mask"], dtype=bool)
    # gradient descent raises the logit of causal pairs and lowers it for the others
    expect(bool(np.all(grad[m & (targets == 1)] < 0)), "gradient not negative for causal pairs")
    expect(bool(np.all(grad[m & (targets == 0)] > 0)), "gradient not positive for non-causal pairs")
    expect(bool(np.all(grad[~m] == 0)), "gradient not zero at padding")
