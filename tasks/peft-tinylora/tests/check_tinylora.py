"""Trusted checks for peft-tinylora/1 (never enter the sandbox).

The random projections P and the signs of singular vectors are not decided by the paper or the package, so the
outputs that depend on them are judged here against the candidate's own frozen factors (A, B, P) and its own
trainable vectors: every adapted layer must compute Eq. (1) of paper.md with one of the model's vectors v, the
factors must be the truncated SVD of the frozen weight, and the vectors must be shared exactly as the tying
setting says. Everything else is compared with the release's outputs by the default comparison."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

# Float64 models; the release takes the SVD in float32, so the factors carry float32 rounding (about 1e-7
# relative). Consistency of a layer with its own factors is a float64 computation.
SVD_RTOL = 1e-5
CONSISTENCY_RTOL = 1e-7


def _entries(out, prefix):
    """The flattened list `prefix` (layers or vectors): a list of dicts or of arrays, by index."""
    marker = out.get(prefix)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{prefix} is not a list")
    return marker[1]


def _layer(out, prefix, i):
    keys = ("A", "B", "P", "W", "x", "delta", "kind")
    return {k: out.get(f"{prefix}.{i}.{k}") for k in keys}


def _vectors(out, prefix):
    n = _entries(out, prefix)
    return [np.asarray(out[f"{prefix}.{k}"], dtype=np.float64) for k in range(n)]


def _weight_as_matrix(layer):
    """The weight as (rows acted on by B, columns acted on by A): Conv1D stores (in, out)."""
    W = np.asarray(layer["W"], dtype=np.float64)
    return W.T if layer["kind"] == "Conv1D" else W


def _R(v, P):
    return np.einsum("i,ijk->jk", v, P)


def _expected_delta(layer, v):
    A, B, P = (np.asarray(layer[k], dtype=np.float64) for k in ("A", "B", "P"))
    R = _R(v, P)
    if layer["kind"] == "Embedding":
        ids = np.asarray(layer["x"], dtype=np.int64)
        return B[ids] @ R @ A
    x = np.asarray(layer["x"], dtype=np.float64)
    return x @ A.T @ R.T @ B.T


def _check_factors(layer, u, what):
    A, B, P = (np.asarray(layer[k], dtype=np.float64) for k in ("A", "B", "P"))
    M = _weight_as_matrix(layer)
    r = A.shape[0]
    equal(list(A.shape), [r, M.shape[1]], what=f"{what}: A is r x d_in")
    equal(list(B.shape), [M.shape[0], r], what=f"{what}: B is d_out x r")
    equal(list(P.shape), [u, r, r], what=f"{what}: P is u x r x r")
    finite(P, f"{what}: P")
    # Eckart-Young: B A is the best rank-r approximation of W, whatever the split of the singular values and
    # whatever the signs of the singular vectors.
    U, S, Vt = np.linalg.svd(M, full_matrices=False)
    best = (U[:, :r] * S[:r]) @ Vt[:r]
    close(B @ A, best, rtol=0, atol=SVD_RTOL * float(np.abs(M).max()), what=f"{what}: B A = truncated SVD of W")
    # the factors are built from singular vectors: rows of A and columns of B are mutually orthogonal
    for G, side in ((A @ A.T, "A A^T"), (B.T @ B, "B^T B")):
        off = G - np.diag(np.diag(G))
        close(off, np.zeros_like(off), rtol=0, atol=SVD_RTOL * float(np.abs(G).max()), what=f"{what}: {side} diagonal")
    # P holds u random matrices: as vectors of length r*r they are linearly independent (up to r*r of them)
    rank = np.linalg.matrix_rank(P.reshape(u, r * r), tol=1e-9 * max(float(np.abs(P).max()), 1e-300))
    equal(rank, min(u, r * r), what=f"{what}: the u projections are distinct random matrices")


def _owner(layer, vs, what):
    """Index of the trainable vector this layer uses (its output matches Eq. (1) with exactly that vector)."""
    got = np.asarray(layer["delta"], dtype=np.float64)
    finite(got, f"{what}: delta")
    hits = []
    for k, v in enumerate(vs):
        if len(v) != np.asarray(layer["P"]).shape[0]:
            continue
        want = _expected_delta(layer, v)
        scale = float(np.abs(want).max()) + 1e-300
        if got.shape == want.shape and float(np.abs(got - want).max()) <= CONSISTENCY_RTOL * scale:
            hits.append(k)
    expect(len(hits) == 1, f"{what}: the layer's update is W + B R(v) A for exactly one trainable v "
                           f"(matches: {hits})")
    return hits[0]


def _check_layers(out, prefix, vs_prefix, u, tying):
    n = _entries(out, prefix)
    vs = _vectors(out, vs_prefix)
    expect(n > 0, "no adapted layer")
    owners = []
    for i in range(n):
        layer = _layer(out, prefix, i)
        _check_factors(layer, u, f"{prefix}[{i}]")
        owners.append(_owner(layer, vs, f"{prefix}[{i}]"))
    for v in vs:
        equal(len(v), u, what="each trainable vector has u entries")
    if tying == "none":
        equal(len(vs), n, what="one vector per adapted layer")
        equal(sorted(owners), list(range(n)), what="each layer has its own vector")
    elif tying == "full":
        equal(len(vs), 1, what="one vector for the whole model")
    else:
        expect(1 < len(vs) < n, f"partial tying: between 1 and {n} vectors, got {len(vs)}")
        equal(sorted(set(owners)), list(range(len(vs))), what="every vector is used by some layer")
    return owners


def _tying(wt):
    return "none" if wt == 0.0 else "full" if wt == 1.0 else "partial"


@check("zero_init_identity[*]")
def zero_init(out, ref):
    # v = 0 at initialisation: the adapted model is the pretrained one (paper: Initialisation)
    close(out["out"], out["base"], rtol=0, atol=1e-12, what="output at v = 0")
    expect(out["v_all_zero"] is True, "v starts at zero")
    # (n / n_tie) * u trainable numbers (4 adapted matrices): n_vectors vectors of u entries each
    equal(out["n_trainable"] % out["n_vectors"], 0, what="vectors of equal size")


@check("zero_init_identity[tied_u13]")
def thirteen(out, ref):
    # the paper's headline: full tying with u = 13 trains exactly 13 numbers, whatever the model's size
    equal(out["n_trainable"], 13, what="13 trainable parameters")
    equal(out["n_vectors"], 1, what="a single shared vector")


@check("layer_updates[*]")
def layer_updates(out, ref):
    _check_layers(out, "layers", "vs", int(ref["cfg.u"]), _tying(float(ref["cfg.weight_tying"])))


@check("partial_tying[*]")
def partial(out, ref):
    owners = _check_layers(out, "layers", "vs", 2, "partial")
    equal(len(owners), 4, what="four adapted layers")


@check("conv1d_layers")
def conv1d(out, ref):
    owners = _check_layers(out, "layers", "vs", 4, "none")
    vs = _vectors(out, "vs")
    for i, k in enumerate(owners):
        layer = _layer(out, "layers", i)
        A, B, P = (np.asarray(layer[key], dtype=np.float64) for key in ("A", "B", "P"))
        dw = np.asarray(out[f"delta_weight.{i}"], dtype=np.float64)
        # Conv1D stores its weight as (in, out): the delta weight has the stored layout
        close(dw, (B @ _R(vs[k], P) @ A).T, rtol=CONSISTENCY_RTOL, atol=1e-12, what=f"conv1d delta weight {i}")
    close(out["merged_minus_unmerged"], 0.0, rtol=0, atol=1e-10, what="merged Conv1D model = unmerged")


@check("hand_rank1")
def hand_rank1(out, ref):
    # W = diag(3, 1): sigma_1 = 3 with u_1 = v_1 = e_1 (up to a joint sign), so U_1 S_1 V_1^T = 3 e1 e1^T for any
    # split of S and either sign. R = v P = 0.5 P (1 x 1); dW = 0.5 P * 3 e1 e1^T; y = W x + dW x at x = (1, 1).
    p = float(np.asarray(out["P"]).reshape(-1)[0])
    expect(p != 0.0, "P is not zero")
    close(out["delta_weight"], [[1.5 * p, 0.0], [0.0, 0.0]], rtol=1e-6, atol=1e-7, what="delta weight")
    close(out["y"], [[3.0 + 1.5 * p, 1.0]], rtol=1e-6, atol=1e-7, what="output")


@check("gradient_reaches_v")
def gradient(out, ref):
    # L = sum of outputs = sum_b 1^T (W x_b + b + B R(v) A x_b): dL/dv_i = (1^T B) P_i (A sum_b x_b)
    A, B, P, x = (np.asarray(out[k], dtype=np.float64) for k in ("A", "B", "P", "x"))
    want = np.einsum("o,oj,ijk,k->i", np.ones(B.shape[0]), B, P, A @ x.sum(axis=0))
    equal(_entries(out, "grads"), 1, what="one trainable vector")
    close(out["grads.0"], want, rtol=1e-9, atol=1e-12, what="gradient of v")
    expect(out["base_grad_is_none"] is True, "the base weight is frozen")


@check("merge_unmerge[*]")
def merge(out, ref):
    tying = "none" if _entries(ref, "vs") == _entries(ref, "layers") else "full"
    vs = _vectors(out, "vs")
    owners = _check_layers(out, "layers", "vs", 3, tying)
    for i, k in enumerate(owners):
        layer = _layer(out, "layers", i)
        A, B, P = (np.asarray(layer[key], dtype=np.float64) for key in ("A", "B", "P"))
        close(out[f"delta_weight.{i}"], B @ _R(vs[k], P) @ A, rtol=CONSISTENCY_RTOL, atol=1e-12,
              what=f"get_delta_weight of layer {i} = B R(v) A")


@check("save_and_load[*]")
def save_load(out, ref):
    vs, loaded = _vectors(out, "vs"), _vectors(out, "loaded_vs")
    equal(len(loaded), len(vs), what="number of reloaded vectors")
    for v in vs:
        expect(any(w.shape == v.shape and np.array_equal(w, v) for w in loaded), "a trained vector was not restored")


@check("several_adapters")
def several(out, ref):
    _check_layers(out, "second_layers", "second_vs", 2, "full")
    equal(_entries(out, "second_layers"), 2, what="the second adapter wraps emb and lin2")


@check("dropout_train_eval")
def dropout(out, ref):
    equal(out["eval_repeat_diff"], 0.0, what="eval mode is deterministic")
    close(out["eval_minus_nodrop"], 0.0, rtol=0, atol=1e-12, what="dropout is off in eval mode")
    expect(out["train_differs"] is True, "dropout acts in train mode")


@check("initialisation")
def initialisation(out, ref):
    uni = np.asarray(out["uniform"], dtype=np.float64)
    equal(uni.size, 3 * 64, what="three vectors of 64")
    # U(-0.05, 0.05): 192 draws; the largest |v| exceeds half the bound with probability 1 - 2^-192
    expect(float(np.abs(uni).max()) <= 0.05, "uniform init within the bound")
    expect(float(np.abs(uni).max()) > 0.025, "uniform init spans the bound")
    frac = float((uni > 0).mean())
    expect(0.3 < frac < 0.7, f"uniform init is symmetric (fraction positive {frac})")
    equal(np.asarray(out["zeros"]), np.zeros(3 * 64), what="default init is zero")
    re = np.asarray(out["reinit"], dtype=np.float64)
    expect(0.1 < float(np.abs(re).max()) <= 0.2, "re-initialisation draws from U(-0.2, 0.2)")


@check("registration")
def registration(out, ref):
    # register_peft_method's docstring: without an explicit prefix "the name of the PEFT method is used as the
    # prefix"; every model class in the package spells its prefix with a trailing underscore. Both readings pass.
    for key in ("vblora_prefix", "re_vblora.0"):
        expect(out[key] in ("vblora", "vblora_"), f"{key}: default prefix from the name, got {out[key]!r}")


@check("projection_seed")
def projection_seed(out, ref):
    # another projection seed gives other random projections on every layer
    n = _entries(out, "other_seed_P_diffs")
    equal(n, _entries(ref, "other_seed_P_diffs"), what="layers")
    for k in range(n):
        expect(out[f"other_seed_P_diffs.{k}"] > 0.0, f"layer {k}: P did not change with the seed")


@check("bf16_merge[*]")
def bf16_merge(out, ref):
    # merged = unmerged function; the merged weights are rounded to bfloat16 (8 mantissa bits), outputs are O(1)
    close(out["merged"], out["unmerged"], rtol=0, atol=0.05, what="merged bf16 model")
    equal(out["weight_dtype"], "torch.bfloat16", what="merged weights keep the base dtype")
