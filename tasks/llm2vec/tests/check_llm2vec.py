"""Trusted checks for llm2vec/1 (never enter the sandbox): the paper's equations recomputed in numpy (float64) from
the inputs the probe echoed, hand-checked values, and the properties the paper states. Parameters of a case are
read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=1e-5, atol=1e-6)
IGNORE = -100
SPECIAL = (0, 1, 2, 3)          # <pad>, <bos>, <eos>, "_" of llm2vec/tokenizer.py
MASK_ID = 3


def tol(dtype: str) -> dict:
    return F32 if dtype == "f32" else F64


def log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def mntp_readings(logits: np.ndarray, labels: np.ndarray) -> dict[str, tuple[float, np.ndarray]]:
    """Eq. (3): the token masked at i predicted from position i - 1; per batch either the mean over all masked
    tokens ("tokens") or the mean over sequences of each sequence's Eq. (3) ("sequences", sequences with at
    least one target). Returns {reading: (loss, d loss / d logits)}."""
    b, t, v = logits.shape
    lp = log_softmax(logits[:, :-1])
    tgt = labels[:, 1:]
    sel = tgt != IGNORE
    onehot = np.zeros_like(lp)
    bi, ti = np.nonzero(sel)
    onehot[bi, ti, tgt[bi, ti]] = 1.0
    nll = -(lp * onehot).sum(-1)                                    # (B, T-1), zero where unselected
    dnll = (np.exp(lp) - onehot) * sel[..., None]                   # d nll / d logits[:, :-1]
    out = {}
    n = sel.sum()
    g = np.zeros_like(logits)
    g[:, :-1] = dnll / n
    out["tokens"] = (nll.sum() / n, g)
    per = sel.sum(-1)
    rows = per > 0
    g = np.zeros_like(logits)
    g[rows, :-1] = dnll[rows] / per[rows, None, None] / rows.sum()
    out["sequences"] = ((nll[rows].sum(-1) / per[rows]).mean(), g)
    return out


def pool_np(hidden: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    """Eqs. (5)-(7) over the real tokens of each row."""
    out = np.zeros((hidden.shape[0], hidden.shape[2]))
    for b in range(hidden.shape[0]):
        h = hidden[b][mask[b].astype(bool)]
        n = h.shape[0]
        if mode == "mean":
            out[b] = h.mean(0)
        elif mode == "weighted_mean":
            w = np.arange(1, n + 1, dtype=float)
            out[b] = (w[:, None] * h).sum(0) / w.sum()
        else:
            out[b] = h[-1]
    return out


def simcse_np(z1: np.ndarray, z2: np.ndarray, tau: float) -> float:
    """Eq. (4)."""
    a = z1 / np.linalg.norm(z1, axis=-1, keepdims=True)
    c = z2 / np.linalg.norm(z2, axis=-1, keepdims=True)
    s = a @ c.T / tau
    return float(-np.mean(np.diag(log_softmax(s))))


# ---------------------------------------------------------------- attention mask


@check("attention_pattern[*]")
def attention_pattern(out, ref):
    m = np.asarray(ref["padding"]).astype(bool)
    b, t = m.shape
    want = np.broadcast_to(m[:, None, :], (b, t, t)).copy()
    if not ref["bidirectional"]:
        want &= np.tril(np.ones((t, t), dtype=bool))[None]
    for key in ("pattern", "pattern_from_bool"):
        expect(out[f"{key}#dtype"] == "bool", f"{key}: dtype {out[f'{key}#dtype']}, want bool")
        got = np.asarray(out[key])
        expect(got.shape == (b, 1, t, t), f"{key}: shape {got.shape}, want {(b, 1, t, t)}")
        # rows of real query positions (what a padding position attends to is never used)
        for bb in range(b):
            equal(got[bb, 0][m[bb]], want[bb][m[bb]], f"{key}: rows of real tokens of sequence {bb}")


# ---------------------------------------------------------------- masking


@check("masking[*]")
def masking(out, ref):
    ids, mask, labels, masked = (np.asarray(ref[k]) for k in ("ids", "mask", "labels", "masked_ids"))
    chosen = labels != IGNORE
    expect(out["input_untouched"] is True, "input_ids modified in place")
    expect(not np.any(chosen & ((mask == 0) | np.isin(ids, SPECIAL))), "a special or padding token was masked")
    equal(np.asarray(out["labels"])[chosen], ids[chosen], "labels at masked positions")
    equal(np.asarray(out["masked_ids"]), np.where(chosen, MASK_ID, ids), "masked ids")
    expect(np.array_equal(masked, np.where(chosen, MASK_ID, ids)), "reference inconsistent")


@check("masking_all_and_none")
def masking_extremes(out, ref):
    ids, mask = np.asarray(ref["ids"]), np.asarray(ref["mask"])
    cand = (mask == 1) & ~np.isin(ids, SPECIAL)
    equal(np.asarray(out["all_ids"]), np.where(cand, MASK_ID, ids), "p = 1: every text token masked")
    equal(np.asarray(out["all_labels"]), np.where(cand, ids, IGNORE), "p = 1: labels")
    equal(np.asarray(out["none_ids"]), ids, "p = 0: nothing masked")
    equal(np.asarray(out["none_labels"]), np.full_like(ids, IGNORE), "p = 0: no labels")


# ---------------------------------------------------------------- MNTP loss


@check("mntp_loss_values[*]")
def mntp_loss_values(out, ref):
    logits, labels = np.asarray(ref["logits"]), np.asarray(ref["labels"])
    t = tol(ref["dtype"])
    expect(out["loss#dtype"] == ("float64" if ref["dtype"] == "f64" else "float32"), "loss dtype")
    got, grad = float(np.asarray(out["loss"])), np.asarray(out["grad"])
    readings = mntp_readings(logits, labels)
    fails = []
    for name, (loss, g) in readings.items():
        try:
            close(got, loss, **t, what=f"loss ({name})")
            close(grad, g, **t, what=f"grad ({name})")
            return
        except Exception as exc:  # noqa: BLE001 - try the other reading
            fails.append(str(exc))
    expect(False, "; ".join(fails))


@check("mntp_loss_hand")
def mntp_loss_hand(out, ref):
    # zero logits over V = 2: -log(1/2) = log 2 = 0.6931471805599453
    close(out["uniform"], 0.6931471805599453, rtol=1e-12, what="uniform")
    # the target at position 2 is predicted from logits [0, 1] at position 1:
    # -log(e / (1 + e)) = log(1 + e^-1) = 0.31326168751822286
    close(out["shifted"], 0.31326168751822286, rtol=1e-12, what="shifted")


# ---------------------------------------------------------------- pooling


@check("pooling[*]")
def pooling(out, ref):
    hidden, mask = np.asarray(ref["hidden"]), np.asarray(ref["mask"])
    key = "f32.emb" if "f32.emb" in ref else "emb"
    close(out[key], pool_np(hidden, mask, ref["mode"]), **(F32 if key.startswith("f32") else F64), what="Eqs. (5)-(7)")


@check("pooling_hand")
def pooling_hand(out, ref):
    # row 0: real tokens 2, 3 -> mean 2.5, weighted (1*2 + 2*3) / 3 = 8/3, last 3
    # row 1: real tokens 4, 6 -> mean 5, weighted (1*4 + 2*6) / 3 = 16/3, last 6
    close(out["mean"], [[2.5], [5.0]], rtol=1e-12, what="mean")
    close(out["weighted_mean"], [[8 / 3], [16 / 3]], rtol=1e-12, what="weighted mean")
    close(out["eos"], [[3.0], [6.0]], rtol=1e-12, what="eos")


# ---------------------------------------------------------------- SimCSE loss


@check("simcse_values[*]")
def simcse_values(out, ref):
    key = "f32.loss" if "f32.loss" in ref else "loss"
    close(out[key], simcse_np(np.asarray(ref["z1"]), np.asarray(ref["z2"]), ref["tau"]),
          **(F32 if key.startswith("f32") else F64), what="Eq. (4)")


@check("simcse_hand")
def simcse_hand(out, ref):
    # cosine matrix = I, / tau = 0.5 -> logits [[2, 0], [0, 2]]: -log(e^2 / (e^2 + 1)) = log(1 + e^-2)
    close(out["orthogonal"], 0.1269280110429725, rtol=1e-12, what="orthogonal pair")
    # cosine similarity ignores the norms
    close(out["scaled"], 0.1269280110429725, rtol=1e-12, what="scaled pair")


# ---------------------------------------------------------------- encode


@check("encoding[*]")
def encoding(out, ref):
    close(out["alone"], np.asarray(ref["emb"]), rtol=1e-9, atol=1e-10, what="a sequence encoded without padding")
    expect(out["training"] is False, "encode changed the model's mode")
    expect(out["n_calls"] >= 1 and bool(np.all(np.asarray(out["call_bidirectional"]))),
           "the encoder must run the model with bidirectional attention")


@check("encoding_uses_future_tokens")
def encoding_future(out, ref):
    h, h2 = np.asarray(out["hidden"]), np.asarray(out["hidden_changed_token"])
    expect(h.shape == h2.shape and h.ndim == 3, "hidden states not recorded")
    expect(np.abs(h[0, 0] - h2[0, 0]).max() > 1e-6, "the first token does not see a later token (Eq. (2))")
    expect(np.abs(np.asarray(out["first"]) - np.asarray(out["second"])).max() > 1e-6, "embedding unchanged")


# ---------------------------------------------------------------- MNTP step


@check("mntp_training_step[*]")
def mntp_step(out, ref):
    labels, ids = np.asarray(ref["labels"]), np.asarray(ref["ids"])
    b = ids.shape[0]
    equal(np.asarray(out["labels"]), labels, "masking draw (mask_tokens)")
    expect(out["n_calls"] >= 1, "the model was not called")
    rows = np.asarray(out["call_rows"])
    expect(int(rows[-1]) == b, "the last model call is not the batch")
    expect(bool(np.asarray(out["call_bidirectional"])[-1]), "MNTP runs with bidirectional attention")
    equal(np.asarray(out["call_ids"])[-b:], np.where(labels != IGNORE, MASK_ID, ids), "the model's input")
    hidden = np.asarray(out["call_hidden"])[-b:]
    real = np.asarray(ref["mask"]).astype(bool)       # a padding position's own state is never used
    close(hidden[real], np.asarray(ref["call_hidden"])[-b:][real], **F64, what="hidden states of the masked input")
    logits = hidden @ np.asarray(ref["tok_weight"]).T
    got = float(np.asarray(out["loss"]))
    readings = mntp_readings(logits, labels)
    ok = [name for name, (loss, _) in readings.items() if abs(got - loss) <= 1e-11 + 1e-9 * abs(loss)]
    expect(bool(ok), f"loss {got} matches no reading of Eq. (3): {[r[0] for r in readings.values()]}")
    finite(out["grad_tok"], "gradient")
    ref_reading = [name for name, (loss, _) in readings.items()
                   if abs(float(np.asarray(ref["loss"])) - loss) <= 1e-11 + 1e-9 * abs(loss)]
    if set(ok) & set(ref_reading):
        close(out["grad_tok"], np.asarray(ref["grad_tok"]), **F64, what="gradient")
    else:
        expect(np.abs(np.asarray(out["grad_tok"])).max() > 0, "zero gradient")


# ---------------------------------------------------------------- SimCSE step


@check("simcse_training_step[*]")
def simcse_step(out, ref):
    ids, mask = np.asarray(ref["ids"]), np.asarray(ref["mask"])
    b = ids.shape[0]
    n = out["n_calls"]
    expect(n in (1, 2), f"{n} model calls: expected the batch twice (two calls or one doubled batch)")
    rows = [int(r) for r in np.asarray(out["call_rows"])]
    expect(bool(np.all(np.asarray(out["call_bidirectional"]))), "SimCSE runs with bidirectional attention")
    cids, cmask, hidden = (np.asarray(out[k]) for k in ("call_ids", "call_mask", "call_hidden"))
    expect(rows in ([b, b], [2 * b]), f"model calls of {rows} rows for a batch of {b}")
    if np.array_equal(cids, np.concatenate([ids, ids])) and np.array_equal(cmask, np.concatenate([mask, mask])):
        first, second = np.arange(b), np.arange(b, 2 * b)
    elif n == 1 and np.array_equal(cids, np.repeat(ids, 2, 0)) and np.array_equal(cmask, np.repeat(mask, 2, 0)):
        first, second = np.arange(0, 2 * b, 2), np.arange(1, 2 * b, 2)
    else:
        expect(False, "the model's inputs are not the batch twice")
    emb = pool_np(hidden, cmask, ref["mode"])
    z1, z2 = emb[first], emb[second]
    expect(np.abs(z1 - z2).max() > 1e-6, "the two passes share their dropout masks")
    got = float(np.asarray(out["loss"]))
    want = [simcse_np(z1, z2, 0.05), simcse_np(z2, z1, 0.05)]
    expect(any(abs(got - w) <= 1e-11 + 1e-9 * abs(w) for w in want), f"loss {got}, Eq. (4) gives {want}")
    expect(out["has_grad"] is True and out["grad_finite"] is True, "no finite gradient reached the embeddings")


# ---------------------------------------------------------------- train.py


@check("train_script_run")
def train_run(out, ref):
    for k, n in (("clm", 1), ("mntp", 2), ("simcse", 2)):
        finite(out[k], k)
        expect(np.asarray(out[k]).shape == (n,), f"{k}: {n} losses")
    close(out["alone"][0], np.asarray(out["embeddings"])[0], rtol=1e-9, atol=1e-10,
          what="embedding of a sentence alone vs in a padded batch")
