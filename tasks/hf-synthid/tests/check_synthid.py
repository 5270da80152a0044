"""Trusted checks for hf-synthid/1 (never enter the sandbox).

The hash from context and key to g-values is the implementation's choice (paper.md), so the watermarked
distributions are judged with the candidate's own g-values: the paper's vectorised tournament
p_l = p_{l-1} (1 + g_l - E_{p_{l-1}}[g_l]) applied for l = 1..m, or the model's distribution unchanged where the
repeated-context rule says so. Where the release and the paper leave a reading open, every reading is accepted:
the context of the first n-1 calls (zeros before the first generated token, or the prompt's last tokens) and
whether `skip_first_ngram_calls` skips the first n-1 or the first n calls. The Bayesian detector is recomputed
from paper.md's equations."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

P_TOL = 1e-9  # float64 chains
P_TOL_GEN = 2e-5  # generate() hands the processor float32 logits


def _a(x):
    return np.asarray(x, dtype=np.float64)


def tournament(p, g):
    """Paper.md, vectorised tournament with N = 2 and binary g-values; g[..., l] is layer l + 1."""
    p = _a(p).copy()
    g = _a(g)
    for layer in range(g.shape[-1]):
        mass = (g[..., layer] * p).sum(axis=-1, keepdims=True)
        p = p * (1.0 + g[..., layer] - mass)
    return p


def _contexts(gen_row, h):
    return [tuple(int(t) for t in gen_row[s - h:s]) if s >= h else None for s in range(len(gen_row))]


def verdicts(gen_row, h, history, skip_calls):
    """'plain', 'wm' or 'any' per call (0-based), by paper.md's repeated-context rule: a call whose context window
    (the last h generated tokens) was used by one of the last `history` recorded calls is not watermarked.
    Calls before the window is filled by generated tokens are watermarked (their context is read either way) and
    are never repeats here (the probe's prompts and generated tokens share no window). `skip_calls` calls at
    the start are neither watermarked nor recorded."""
    ctx = _contexts(gen_row, h)
    recorded, out = [], []
    for s, c in enumerate(ctx):
        if s < skip_calls:
            out.append("plain")
            continue
        window = recorded[-history:] if history > 0 else []
        out.append("plain" if c is not None and c in window else "wm")
        recorded.append(c if c is not None else ("early", s))
    return out


def _matches(outp, base, g_true, g_pad, tol):
    got = {"plain": float(np.abs(outp - base).max()),
           "wm_true": float(np.abs(outp - tournament(base, g_true)).max()),
           "wm_pad": float(np.abs(outp - tournament(base, g_pad)).max())}
    return {k for k, v in got.items() if v <= tol}, got


def _judge_steps(out, ref, bases, gen, h, history, skip_options, tol, what):
    """Accept the candidate if, for one of `skip_options`, every call and row matches the required reading."""
    outp, g_true, g_pad = _a(out["out_probs"]), _a(out["g_true"]), _a(out["g_pad"])
    expect(bool(np.isin(g_true, [0.0, 1.0]).all()), f"{what}: g-values are not 0/1")
    failures = []
    for skip in skip_options:
        bad = []
        for b in range(gen.shape[0]):
            want = verdicts(gen[b], h, history, skip)
            for s, w in enumerate(want):
                ok, got = _matches(outp[s, b], bases[s, b], g_true[s, b], g_pad[s, b], tol)
                if w == "plain" and "plain" not in ok:
                    bad.append(f"call {s + 1} row {b}: expected the input distribution unchanged (repeated context or "
                               f"skipped call), distances {got}")
                if w == "wm" and not ({"wm_true", "wm_pad"} & ok):
                    bad.append(f"call {s + 1} row {b}: expected the tournament distribution with the processor's own "
                               f"g-values, distances {got}")
        if not bad:
            return
        failures.append(bad[:3])
    expect(False, f"{what}: {failures[0]}")


def _probs_of(scores):
    s = _a(scores)
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


@check("processor_steps[*]")
def processor_steps(out, ref):
    n, history = int(ref["ngram_len"]), int(ref["history"])
    gen = np.asarray(ref["gen"], dtype=np.int64)
    bases = _a(ref["in_probs"])
    if ref["debug"]:
        bases = np.full_like(bases, 1.0 / bases.shape[-1])
    skips = [n - 1, n] if ref["skip"] else [0]
    _judge_steps(out, ref, bases, gen, n - 1, history, skips, P_TOL, "processor calls")
    # the reference itself takes the first reading (zeros) or the second; make sure the case discriminates
    close(_a(out["out_probs"]).sum(axis=-1), np.ones(bases.shape[:2]), atol=1e-9, what="output distributions sum to 1")


@check("update_scores[*]")
def update_scores(out, ref):
    expect(bool(out["finite_where_positive"]), "update_scores: -inf/NaN for a token of positive probability")


    want = tournament(_probs_of(ref["scores"]), ref["g"])
    close(out["probs"], want, rtol=1e-9, atol=1e-12, what="update_scores: the tournament of paper.md, layers in order")
    close(_a(out["probs"])[0, 1], 0.0, atol=0.0, what="a token with probability 0 keeps probability 0")


@check("g_value_properties")
def g_value_properties(out, ref):
    equal(list(out["shape"]), [6, 297, 5], what="g-values shape (batch, input_len - (ngram_len - 1), depth)")
    expect(bool(out["binary"]), "g-values are not 0/1")
    expect(bool(out["deterministic"]), "g-values differ between two calls on the same ids")
    expect(0.45 <= float(out["mean"]) <= 0.55, f"mean g-value {out['mean']} is not about 0.5 (Bernoulli(0.5))")
    expect(bool(out["same_planted"]), "the same n-gram at another position/row gives other g-values")
    expect(bool(out["outside_first_unchanged"]), "g-values depend on a token outside their n-gram")
    expect(0.2 <= float(out["outside_first_changed"]) <= 0.8,
           f"changing the first token changed {out['outside_first_changed']} of the first n-gram's g-values")
    for j, frac in enumerate(out["position_changed"]):
        expect(float(frac) >= 0.2, f"changing token {j} of an n-gram changed only {frac} of its g-values")
    for layer, frac in enumerate(out["layer_agree"]):
        expect(0.4 <= float(frac) <= 0.6, f"layer 1 and layer {layer + 2} g-values agree on {frac} (not independent)")
    kc = [float(x) for x in out["keys_changed"]]
    for layer in (0, 4):
        expect(0.4 <= kc[layer] <= 0.6, f"changing layer {layer + 1}'s key changed {kc[layer]} of its g-values")
    for layer in (1, 2, 3):
        equal(kc[layer], 0.0, what=f"layer {layer + 1}'s key is unchanged, so are its g-values")
    expect(0.2 <= float(out["reversed_changed"]) <= 0.8,
           f"reversing an n-gram changed only {out['reversed_changed']} of its g-values (the window's order matters)")
    expect(0.4 <= float(out["seed_changed"]) <= 0.6,
           f"another sampling-table seed changed {out['seed_changed']} of the g-values")


@check("expected_mean_g")
def expected_mean_g(out, ref):
    for (v, q), got in zip([(2, 0.5), (10, 0.5), (1000, 0.5), (7, 0.3), (3, 0.9)], out["values"], strict=True):
        close(float(got), q + q * (1 - q) * (1 - 1 / v), rtol=1e-12, what=f"expected g-value (|V|={v}, q={q})")
    close(float(out["default_q"]), 0.5 + 0.25 * (1 - 1 / 50), rtol=1e-12, what="expected g-value, q = 0.5")


def psi(g, beta, delta):
    g, beta, delta = _a(g), _a(beta), _a(delta)
    m = g.shape[-1]
    logits = np.array(beta, dtype=np.float64) + np.zeros(g.shape)
    for layer in range(m):
        for prev in range(layer):
            logits[..., layer] += delta[layer, prev] * g[..., prev]
    return 1.0 / (1.0 + np.exp(-logits))


def lik_w(g, beta, delta):
    ps = psi(g, beta, delta)
    return 0.5 * ((_a(g) + 0.5) * ps + (1.0 - ps))


def posterior(g, mask, beta, delta, prior):
    lw = np.log(lik_w(g, beta, delta))
    lu = np.log(0.5)
    s = ((lw - lu) * _a(mask)[..., None]).sum(axis=(1, 2))
    z = np.log(prior) - np.log(1 - prior) + s
    return 1.0 / (1.0 + np.exp(-z))


BETA = [-1.0, 0.5, 1.5, -0.3]
DELTA = [[0.7, 0.4, -0.9, 0.2], [0.4, -0.5, 1.1, 0.6], [-0.9, 1.1, 0.3, -1.2], [0.2, 0.6, -1.2, 0.9]]


@check("likelihood_watermarked")
def likelihood_watermarked(out, ref):
    expect(bool(out["params_found"]), "no parameters of sizes m (beta) and m*m (delta)")
    close(out["likelihood"], lik_w(ref["g"], BETA, DELTA), rtol=1e-9, what="P(g | watermarked)")


@check("bayesian_posterior[*]")
def bayesian_posterior(out, ref):
    expect(bool(out["params_found"]), "no parameters of sizes m (beta) and m*m (delta)")
    want = posterior(ref["g"], ref["mask"], BETA, DELTA, float(ref["base_rate"]))
    # rtol 1e-6: the release keeps the prior in a float32 parameter (0.3 -> 0.30000001)
    close(out["posterior"], want, rtol=1e-6, what="P(w | g) with the mask")
    close(out["posterior_dict"], want, rtol=1e-6, what="posterior_probabilities (return_dict=True)")


@check("bayesian_loss")
def bayesian_loss(out, ref):
    expect(bool(out["params_found"]), "no parameters of sizes m (beta) and m*m (delta)")
    close(out["posterior"], ref["posterior"], rtol=1e-9, what="posterior with labels given")
    p, y = _a(out["posterior"]), _a(ref["labels"])
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    loss = float(out["loss"])
    expect(abs(loss - bce.mean()) <= 1e-9 * max(1.0, bce.mean()) or abs(loss - bce.sum()) <= 1e-9 * bce.sum(),
           f"loss {loss} is neither the mean ({bce.mean()}) nor the sum ({bce.sum()}) of the cross-entropies "
           f"(delta = 0: no penalty)")


@check("bayesian_loss_penalty")
def bayesian_loss_penalty(out, ref):
    """Cross-entropy (mean or sum over the batch) plus 0.5 x the L2 penalty on delta (squared entries of the whole
    matrix or of the part below the diagonal that the model uses)."""
    expect(bool(out["params_found"]), "no parameters of sizes m (beta) and m*m (delta)")
    want_p = posterior(ref["g"], np.ones((4, 5)), BETA, DELTA, 0.4)
    close(out["posterior"], want_p, rtol=1e-6, what="posterior with labels given")
    p, y = want_p, _a(ref["labels"])
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    d = _a(DELTA)
    readings = [c + 0.5 * r for c in (bce.mean(), bce.sum()) for r in ((d ** 2).sum(), (np.tril(d, -1) ** 2).sum())]
    loss = float(out["loss"])
    expect(min(abs(loss - r) for r in readings) <= 1e-6 * max(readings),
           f"loss {loss}: not cross-entropy + 0.5 * L2(delta) under any reading {readings}")


@check("detector_save_load")
def detector_save_load(out, ref):
    close(out["after"], out["before"], rtol=1e-12, what="posterior after save_pretrained/from_pretrained")


def _text_masks(ids, n, eos):
    ids = np.asarray(ids, dtype=np.int64)
    b, length = ids.shape
    m = np.zeros((b, length - n + 1))
    for r in range(b):
        hits = np.nonzero(ids[r] == eos)[0]
        first = int(hits[0]) if len(hits) else length
        seen = []
        for i in range(length - n + 1):
            c = tuple(ids[r, i:i + n - 1])
            m[r, i] = float(i + n - 1 < first and c not in seen)
            seen.append(c)
    return m


@check("text_detector")
def text_detector(out, ref):
    expect(bool(out["params_found"]), "no parameters of sizes m (beta) and m*m (delta)")
    g = _a(out["g"])
    equal(list(g.shape), list(_a(ref["g"]).shape), what="g-values shape")
    expect(bool(np.isin(g, [0.0, 1.0]).all()), "g-values are not 0/1")
    mask = _text_masks(ref["ids"], int(ref["ngram_len"]), int(ref["eos"]))
    want = posterior(g, mask, ref["beta"], ref["delta"], float(ref["base_rate"]))
    close(out["posterior"], want, rtol=1e-6, what="detector posterior (repeated-context and EOS masks)")


@check("generate_watermarked[*]")
def generate_watermarked(out, ref):
    gen = np.asarray(out["gen"], dtype=np.int64)
    equal(list(gen.shape), list(np.asarray(ref["gen"]).shape), what="generated tokens shape")
    sup = [int(t) for t in np.asarray(ref["suppressed"])]
    expect(not np.isin(gen, sup).any(), "a suppressed token was generated")
    logits = _a(out["logits"]).copy()
    logits[..., sup] = -np.inf
    bases = _probs_of(logits)
    outp = _probs_of(_a(out["scores"]))
    n = int(ref["ngram_len"])
    _judge_steps({"out_probs": outp, "g_true": out["g_true"], "g_pad": out["g_pad"]}, ref, bases, gen, n - 1, 1024,
                 [0], P_TOL_GEN, "generate()")


@check("detection_statistics")
def detection_statistics(out, ref):
    expect(bool(out["params_found"]), "no parameters of sizes m (beta) and m*m (delta)")
    wm, plain = float(out["mean_g_wm"]), float(out["mean_g_plain"])
    expect(wm >= 0.65, f"mean g-value of watermarked text {wm} (about 0.75 expected for a near-uniform model)")
    expect(plain <= 0.58, f"mean g-value of unwatermarked text {plain} (about 0.5 expected)")
    pw, pp = _a(out["post_wm"]), _a(out["post_plain"])
    expect(pw.min() > pp.max(), f"detector posteriors do not separate: watermarked {pw}, unwatermarked {pp}")
    expect(pw.mean() > 0.9 and pp.mean() < 0.1, f"detector posteriors: watermarked {pw}, unwatermarked {pp}")
