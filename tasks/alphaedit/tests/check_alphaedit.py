"""Trusted checks for alphaedit/1 (never enter the sandbox): hand-checked values and the paper's properties, on
the outputs probe_alphaedit.py emitted. The default comparison with the reference's outputs has already passed.
Parameters of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=2e-4, atol=2e-5)


def eq7(cov: np.ndarray, threshold: float) -> np.ndarray:
    """Eqs. (6)-(7): U_hat U_hat^T over the eigenvectors of K0 K0^T whose eigenvalues count as zero."""
    values, vectors = np.linalg.eigh(cov)
    null = vectors[:, values < threshold]
    return null @ null.T


def eq9(resid, keys, projector, prev_cov, reg):
    """Eq. (9): R K1^T P (Kp Kp^T P + K1 K1^T P + reg I)^-1."""
    lhs = prev_cov @ projector + keys @ keys.T @ projector + reg * np.eye(keys.shape[0])
    return resid @ keys.T @ projector @ np.linalg.inv(lhs)


# ---------------------------------------------------------------- null_space_projector


@check("projector_matches_reference[*]")
def projector_is_eq7(out, ref):
    key = next(k for k in ref if k.endswith(".projector"))
    tol = F32 if key.startswith("f32") else F64
    p = out[key].astype(np.float64)
    close(p, eq7(ref["cov"], ref["threshold"]), **tol, what="Eqs. (6)-(7)")
    close(np.trace(p), float(ref["n_null"]), rtol=0, atol=1e-3, what="rank of P = number of null eigenvalues")
    close(p @ p, p, rtol=0, atol=10 * tol["atol"], what="P idempotent")
    close(p, p.T, rtol=0, atol=10 * tol["atol"], what="P symmetric")


@check("projector_hand_values")
def projector_hand_values(out, ref):
    # diag(0.5, 3, 0.01, 7), threshold 1: the eigenvectors e1 and e3 have eigenvalues below 1
    close(out["diagonal"], np.diag([1.0, 0.0, 1.0, 0.0]), **F64, what="diagonal K0 K0^T")
    # [[2, 1], [1, 2]]: eigenvalue 1 on (1, -1)/sqrt(2), 3 on (1, 1)/sqrt(2); threshold 2 keeps the first
    close(out["rotated"], 0.5 * np.array([[1.0, -1.0], [-1.0, 1.0]]), **F64, what="rotated K0 K0^T")
    close(out["all_above"], np.zeros((3, 3)), rtol=0, atol=1e-12, what="no null space")
    # eigenvalues 0.2, 0.3 and 0 are all below 1
    close(out["all_below"], np.eye(3), **F64, what="everything is null")


# ---------------------------------------------------------------- preserved_key_covariance


@check("covariance_matches_reference[*]")
def covariance_is_k0_k0t(out, ref):
    key = next(k for k in ref if k.endswith(".cov"))
    tol = F32 if key.startswith("f32") else F64
    equal(out["cov_dtype"], "torch.float32" if key.startswith("f32") else "torch.float64", what="dtype")
    equal(out["shape"].tolist(), [128, 128], what="shape (d_mlp, d_mlp)")
    # the keys of every real token, read with the repository's hook (sketched identically)
    close(out[key], ref[key.replace(".cov", ".hooked")], **tol, what="K0 K0^T over the real tokens")


@check("covariance_ignores_padding")
def covariance_ignores_padding(out, ref):
    expect(ref["padding"] > 0, "the corpus has padding")
    close(out["padded_with_tokens"], out["padded_with_zeros"], **F64, what="padding does not count")


# ---------------------------------------------------------------- init_editor_state


@check("init_state[*]")
def init_state_properties(out, ref):
    layers = ref["projector_layers"].tolist()
    equal(out["is_state"], True, what="returns an EditorState")
    equal(out["projector_layers"].tolist(), layers, what="projector layers")
    equal(out["prev_cov_layers"].tolist(), layers, what="prev_cov layers")
    for layer in layers:
        n_null = int((ref[f"hooked_eigenvalues.{layer}"] < ref["threshold"]).sum())
        # the last 16 entries of the sketch are the diagonal of P: its trace is the null space's dimension
        close(out[f"projector.{layer}"][8:].sum(), float(n_null), rtol=0, atol=1e-6,
              what=f"rank of P at layer {layer}")
        expect(out[f"idempotence_error.{layer}"] < 1e-9, f"P at layer {layer} is not idempotent")
        expect(out[f"symmetry_error.{layer}"] < 1e-12, f"P at layer {layer} is not symmetric")
        equal(out[f"prev_cov_absmax.{layer}"], 0.0, what=f"no previous keys at layer {layer}")
        equal(out[f"projector_dtype.{layer}"], "torch.float64", what="projector dtype")


# ---------------------------------------------------------------- alphaedit_delta


@check("delta_matches_reference[*]")
def delta_is_eq9(out, ref):
    key = next(k for k in ref if k.endswith(".delta"))
    tol = F32 if key.startswith("f32") else F64
    delta = out[key].astype(np.float64)
    r, k, p, c, reg = ref["resid"], ref["keys"], ref["projector"], ref["prev_cov"], ref["reg_weight"]
    close(delta, eq9(r, k, p, c, reg), **tol, what="Eq. (9)")
    close(delta @ p, delta, rtol=0, atol=10 * tol["atol"], what="Delta P = Delta: in the null space")
    # stationarity of Eq. (8) at Delta P: (Delta K1 - R) K1^T P + reg Delta + Delta Kp Kp^T P = 0
    grad = (delta @ k - r) @ k.T @ p + reg * delta + delta @ c @ p
    scale = np.abs(r @ k.T @ p).max() + 1.0
    close(grad / scale, np.zeros_like(grad), rtol=0, atol=50 * tol["atol"], what="normal equations of Eq. (8)")


@check("delta_hand_values")
def delta_hand_values(out, ref):
    # d0 = d1 = u = 1, r = 2, k = 3, P = 1: Delta = r k / (kp^2 + k^2 + reg)
    close(out["scalar"], [[6.0 / 10.0]], **F64, what="2*3 / (9 + 1)")
    close(out["scalar_prev"], [[6.0 / 14.0]], **F64, what="2*3 / (4 + 9 + 1)")
    close(out["scalar_reg"], [[6.0 / 9.5]], **F64, what="2*3 / (9 + 0.5)")
    close(out["scalar_zero_projector"], [[0.0]], rtol=0, atol=0, what="P = 0")
    # P = diag(1, 0), k = (1, 1), r = 1: Delta = (a, 0) minimising (a - 1)^2 + a^2 -> a = 1/2
    close(out["plane"], [[0.5, 0.0]], **F64, what="two-dimensional key, one null direction")


# ---------------------------------------------------------------- apply_edits


def unprefixed(d: dict) -> dict:
    return {k.removeprefix("f32."): v for k, v in d.items()}


@check("edit_matches_reference[*]")
def edit_properties(out, ref):
    f32 = any(k.startswith("f32.") for k in ref)
    out, ref = unprefixed(out), unprefixed(ref)
    layers = ref["layers"].tolist()
    n_batches = sum(1 for k in ref if k.endswith(".delta_layers"))
    for b in range(n_batches):
        equal(out[f"b{b}.delta_layers"].tolist(), layers, what="one update per edited layer")
        for layer in layers:
            outside = out[f"b{b}.outside_null_space.{layer}"]
            expect(outside < (1e-4 if f32 else 1e-9), f"update of layer {layer} leaves the null space ({outside})")
            # ||Delta K0||^2 = tr(Delta P K0 K0^T P Delta^T) < threshold ||Delta||^2 (Section 3.2)
            bound = ref["threshold"] * out[f"b{b}.delta_norm2.{layer}"] * (1 + (1e-4 if f32 else 1e-8)) + 1e-12
            expect(out[f"b{b}.preserved_leakage.{layer}"] <= bound,
                   f"update of layer {layer} moves the preserved keys' outputs beyond the threshold")
    for layer in layers:
        # Section 3.4: K_p K_p^T gathers the keys of every request written into the layer
        close(out[f"prev_cov.{layer}"], out[f"edited_keys_cov.{layer}"], **(F32 if f32 else F64),
              what=f"K_p K_p^T at layer {layer}")
    if ref["threshold"] < 1e-3:  # no eigenvalue below it: P = 0, nothing is written
        for layer in layers:
            equal(out[f"b0.delta_norm2.{layer}"], 0.0, what="P = 0 gives no update")


@check("edit_matches_reference[one-layer]")
def one_layer_edit_is_eq9(out, ref):
    # one critical layer: L = l, so r = z - h^L (Eq. (5)); no previous edit: Kp = 0; K1 are the keys read after
    # the edit (the edit of W_out at this layer does not change this layer's keys)
    (layer,) = ref["layers"].tolist()
    resid = (ref["b0.z"] - ref["b0.h_last_before"]).T
    keys = ref[f"b0.keys.{layer}"].T
    want = eq9(resid, keys, ref["full.projector"], np.zeros((keys.shape[0], keys.shape[0])), ref["reg_weight"])
    close(out[f"b0.delta.{layer}"], want, rtol=1e-7, atol=1e-9, what="Eq. (9) with Eq. (5) at L = l")


@check("edit_script_run")
def edit_script_metrics(out, ref):
    for name in ("efficacy", "target_prob", "specificity"):
        expect(all(0.0 <= x <= 1.0 for x in out[name]), f"{name} outside [0, 1]")
