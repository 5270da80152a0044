"""Trusted checks for calibrate/1 (never enter the sandbox): Eq. (2) with W = diag(p_cf)^-1 and b = 0 recomputed
from the candidate's own uncalibrated probabilities and content-free estimate, hand-derived values, and the
properties of Sections 2.2 and 5 (probabilities over the label words, normalised; the prediction is the most
probable class). Inputs are read from `ref`, never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

TOL = dict(rtol=1e-9, atol=1e-12)


def softmax(z) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@check("calibrate_hand")
def hand_values(out, ref):
    # p_cf = (.8, .2): W = diag(1.25, 5), b = 0
    close(out["W"], [[1.25, 0.0], [0.0, 5.0]], **TOL, what="W = diag(p_cf)^-1")
    close(out["b"], [0.0, 0.0], **TOL, what="b = 0")
    # W p: (.875, 1.5), (.625, 2.5), (.25, 4.0); softmax of two values = (1, e^d) / (1 + e^d)
    want = []
    for z0, z1 in [(0.875, 1.5), (0.625, 2.5), (0.25, 4.0)]:
        e = math.exp(z1 - z0)
        want.append([1 / (1 + e), e / (1 + e)])
    close(out["q"], want, **TOL, what="softmax(W p + b)")
    close(out["q_f32"], want, rtol=1e-6, what="float32 probabilities, float64 result")
    equal(out["q_f32#dtype"], "float64", what="calibrated probabilities are float64")
    close(out["q_batched"], np.repeat(np.array(want)[:, None, :], 4, axis=1), **TOL, what="leading dimensions")
    close(out["W3"], np.diag([4.0, 2.0, 4.0]), **TOL, what="three classes")
    close(out["W32"], np.diag([4.0, 4.0 / 3.0]), **TOL, what="from a float32 estimate")
    equal((out["W32#dtype"], out["b32#dtype"]), ("float64", "float64"), what="W and b are float64")
    # uniform p: W p = (4/3, 2/3, 4/3) -> softmax
    close(out["q3"], softmax([4 / 3, 2 / 3, 4 / 3]), **TOL, what="three-class calibration")


@check("calibrate_with_bias_term")
def affine(out, ref):
    # diag(2, .5) (.6, .4) + (.1, -.3) = (1.3, -.1); [[1, 2], [.5, -1]] (.6, .4) + b = (1.5, -.4)
    close(out["q"], [softmax([1.3, -0.1])], **TOL, what="softmax(W p + b)")
    close(out["q_full_W"], softmax([1.5, -0.4]), **TOL, what="W p, a matrix-vector product")


@check("label_probs_sets[*]")
def distributions(out, ref):
    p = np.asarray(out["probs"])
    expect(bool(np.all(p > 0)), "probabilities of the label words are positive")
    close(p.sum(axis=1), 1.0, rtol=1e-12, what="renormalised over the label words")


@check("content_free_sets[*]")
def content_free_normalised(out, ref):
    for key in ("default", "na_only", "two"):
        close(float(np.sum(out[key])), 1.0, rtol=1e-12, what=f"{key}: a distribution over the classes")


@check("classify_sets[*]")
def classification(out, ref):
    plain = np.asarray(out["plain.probs"])
    expect(out["plain.p_cf"] is None, "no content-free estimate without calibration")
    p_cf = np.asarray(out["calibrated.p_cf"])
    close(out["calibrated.probs"], softmax(plain / p_cf), **TOL,
          what="calibrated = softmax(diag(p_cf)^-1 p) of the uncalibrated probabilities")
    for name in ("plain", "calibrated"):
        equal(np.asarray(out[f"{name}.predictions"]).tolist(),
              np.argmax(np.asarray(out[f"{name}.probs"]), axis=1).tolist(), what=f"{name}: the most probable class")
        equal(out[f"{name}.predictions#dtype"], "int64", what="int64 predictions")
