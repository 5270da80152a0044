"""Trusted checks for deepconf/1 (never enter the sandbox): hand-checked values, and an independent replay of
the paper's definitions and algorithms on the data probe_deepconf.py emitted. The default comparison with the
reference's outputs has already passed. Parameters of a case are read from `ref`, never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-12, atol=1e-14)
F32 = dict(rtol=1e-5, atol=1e-6)
LN2 = math.log(2.0)
EOS = 0
DEFAULTS = {"top_k": 5, "window": 8, "bottom_percent": 10, "tail_tokens": 8, "max_new_tokens": 48}


def tok_conf(logprobs: np.ndarray, k: int) -> np.ndarray:
    """Eq. (2): minus the mean log-probability of the k most likely tokens."""
    return -np.sort(logprobs, axis=-1)[..., ::-1][..., :k].mean(axis=-1)


def groups(tc: np.ndarray, n: int) -> np.ndarray:
    """Eq. (4) over sliding windows of n tokens (one group of all tokens when the trace is shorter)."""
    if len(tc) < n:
        return np.array([tc.mean()])
    return np.convolve(tc, np.ones(n), mode="valid") / n


def measure(tc: np.ndarray, name: str, window: int, bottom: int, tail: int) -> float:
    """Eq. (3), (5), (6), (7) with the repository's pinned counts."""
    if name == "mean":
        return float(tc.mean())
    if name == "tail":
        return float(tc[-tail:].mean())
    g = groups(tc, window)
    if name == "lowest":
        return float(g.min())
    count = max(1, -(-bottom * len(g) // 100))
    return float(np.sort(g)[:count].mean())


def vote(answers, weights) -> tuple[str | None, dict[str, float], list[int]]:
    """Eq. (9) over the traces with an answer; ties to the answer seen first."""
    totals: dict[str, float] = {}
    voters = []
    for i, (a, w) in enumerate(zip(answers, weights, strict=True)):
        if a is not None:
            totals[a] = totals.get(a, 0.0) + float(w)
            voters.append(i)
    best = None
    for a, w in totals.items():
        if best is None or w > totals[best]:
            best = a
    return best, totals, voters


def seq(d: dict, key: str) -> list:
    """An emitted list, from its flattened keys."""
    kind, n = d[key]
    equal(kind, "seq", what=f"{key} is a list")
    return [d[f"{key}.{i}"] for i in range(n)]


def mapping(d: dict, key: str) -> dict:
    """An emitted dict, from its flattened keys."""
    kind, keys = d[key]
    equal(kind, "map", what=f"{key} is a dict")
    return {k: d[f"{key}.{k}"] for k in (keys.split(",") if keys else [])}


def expect_vote(out: dict, prefix: str, answer, totals: dict[str, float], voters: list[int], what: str) -> None:
    equal(out[f"{prefix}answer"], answer, what=f"{what}: answer")
    equal(seq(out, f"{prefix}voters"), voters, what=f"{what}: voters")
    got = mapping(out, f"{prefix}totals")
    equal(sorted(got), sorted(totals), what=f"{what}: answers voted for")
    for a, w in totals.items():
        close(got[a], w, **F64, what=f"{what}: V({a})")


def split_traces(d: dict) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[int], list[bool], list]:
    """(token ids, log-prob rows) of each emitted trace, with the lengths, stopped flags and answers."""
    lengths, stopped, answers = seq(d, "traces.lengths"), seq(d, "traces.stopped"), seq(d, "traces.answers")
    ends = np.cumsum(lengths)
    starts = ends - np.asarray(lengths)
    ids, lp = d["traces.token_ids"], d["traces.logprobs"]
    return [(ids[a:b], lp[a:b]) for a, b in zip(starts, ends, strict=True)], lengths, stopped, answers


# ---------------------------------------------------------------- token_confidence


@check("token_matches_reference[*]")
def token_is_eq2(out, ref):
    key = next(k for k in out if k.endswith(".conf"))
    close(out[key], tok_conf(ref["logprobs"], ref["k"]), **(F32 if key.startswith("f32") else F64), what="Eq. (2)")


@check("token_hand_values")
def token_hand_values(out, ref):
    # dyadic distribution sorted: 1/2, 1/4, 1/8, 1/8 -> -log p = 1, 2, 3, 3 times ln 2
    close(out["dyadic_k1"], LN2, **F64, what="k = 1: -ln(1/2)")
    close(out["dyadic_k2"], (1 + 2) / 2 * LN2, **F64, what="k = 2: (ln 2 + 2 ln 2) / 2")
    close(out["dyadic_k4"], (1 + 2 + 3 + 3) / 4 * LN2, **F64, what="k = 4: 9/4 ln 2")
    close(out["uniform_k5"], math.log(20.0), **F64, what="uniform over 20 tokens: ln 20 for any k")
    # 0.7, 0.1, 0.1, 0.1: -(ln 0.7 + 3 ln 0.1) / 4
    close(out["peaked_k4"], -(math.log(0.7) + 3 * math.log(0.1)) / 4, **F64, what="peaked, k = 4")
    close(out["batch"], [[1.5 * LN2, -(math.log(0.7) + math.log(0.1)) / 2]], **F64, what="(1, 2, V) input, k = 2")


# ---------------------------------------------------------------- group_confidences


@check("groups_match_reference[*]")
def groups_are_eq4(out, ref):
    key = next(k for k in out if k.endswith(".groups"))
    close(out[key], groups(ref["token_conf"], ref["window"]), **(F32 if key.startswith("f32") else F64),
          what="Eq. (4) over sliding windows")


@check("groups_hand_values")
def groups_hand_values(out, ref):
    # token confidences 1, 2, 3, 4, 5
    close(out["w1"], [1, 2, 3, 4, 5], **F64, what="window 1: the tokens themselves")
    close(out["w2"], [1.5, 2.5, 3.5, 4.5], **F64, what="window 2")
    close(out["w4"], [2.5, 3.5], **F64, what="window 4: (1+2+3+4)/4, (2+3+4+5)/4")
    close(out["w5"], [3.0], **F64, what="window = length: one group")
    close(out["w7"], [3.0], **F64, what="window > length: one group of all tokens")


# ---------------------------------------------------------------- trace_confidence


@check("measures_match_reference[*]")
def measures_are_eq3_to_7(out, ref):
    key = "f32" if "f32.mean" in out else "f64"
    for name in ("mean", "bottom", "lowest", "tail"):
        want = measure(ref["token_conf"], name, ref["window"], ref["bottom_percent"], ref["tail_tokens"])
        close(out[f"{key}.{name}"], want, **(F32 if key == "f32" else F64), what=f"measure {name}")
        equal(out[f"{key}.{name}#dtype"], "float32" if key == "f32" else "float64", what=f"{name} dtype")


@check("measures_hand_values")
def measures_hand_values(out, ref):
    # token confidences 4, 1, 3, 2, 5, 6, 0.5, 2.5 (sum 24); window 2 ->
    # groups 2.5, 2, 2.5, 3.5, 5.5, 3.25, 1.5 (7 groups); lowest 1.5
    # bottom 10%: ceil(0.7) = 1 group -> 1.5; 30%: ceil(2.1) = 3 -> (1.5 + 2 + 2.5)/3 = 2;
    # 50%: ceil(3.5) = 4 -> (1.5 + 2 + 2.5 + 2.5)/4 = 2.125
    bottoms = {10: 1.5, 30: 2.0, 50: 2.125}
    tails = {4: (5 + 6 + 0.5 + 2.5) / 4, 20: 3.0}  # the last 4 tokens; all 8 when the tail is longer
    for b, want_bottom in bottoms.items():
        for t, want_tail in tails.items():
            p = f"b{b}_t{t}."
            close(out[p + "mean"], 3.0, **F64, what="C_avg = 24 / 8")
            close(out[p + "lowest"], 1.5, **F64, what="lowest group")
            close(out[p + "bottom"], want_bottom, **F64, what=f"bottom {b}%")
            close(out[p + "tail"], want_tail, **F64, what=f"tail of {t} tokens")
    # window 9 > 8 tokens: one group (mean 3); tail of 2 tokens: (0.5 + 2.5) / 2
    for name, want in (("mean", 3.0), ("bottom", 3.0), ("lowest", 3.0), ("tail", 1.5)):
        close(out[f"window_over_length.{name}"], want, **F64, what=f"{name}, window over the length")


# ---------------------------------------------------------------- weighted_vote


@check("vote_matches_reference[*]")
def vote_is_eq9(out, ref):
    answer, totals, voters = vote(seq(ref, "answers"), seq(ref, "weights"))
    expect_vote(out, "", answer, totals, voters, "Eq. (9)")


# ---------------------------------------------------------------- deepconf_offline


@check("offline_hand_values")
def offline_hand_values(out, ref):
    # top_k = 4 = V, measure "mean": rows A uniform (ln 4 = 2 ln 2), B dyadic (9/4 ln 2), C 0.7/0.1/0.1/0.1
    a, b, c = 2 * LN2, 2.25 * LN2, -(math.log(0.7) + 3 * math.log(0.1)) / 4
    # traces: 0 "3" AA -> a; 1 "5" C -> c; 2 no answer; 3 "5" BC -> (b + c)/2; 4 "3" ABA -> (2a + b)/3; 5 "3" A -> a
    t3, t4 = (b + c) / 2, (2 * a + b) / 3
    # keep 100%: all 5 answered traces vote; "3": a + t4 + a = 4.2166 > "5": c + t3 = 3.5040
    expect_vote(out, "keep100.", "3", {"3": a + t4 + a, "5": c + t3}, [0, 1, 3, 4, 5], "keep 100%")
    # keep 50%: ceil(2.5) = 3 most confident: c (1.816), t3 (1.688), t4 (1.444) -> "5"
    expect_vote(out, "keep50.", "5", {"5": c + t3, "3": t4}, [1, 3, 4], "keep 50%")
    # keep 10%: ceil(0.5) = 1: trace 1 alone
    expect_vote(out, "keep10.", "5", {"5": c}, [1], "keep 10%")


@check("offline_matches_reference[*]")
def offline_is_algorithm1(out, ref):
    traces, _, _, answers = split_traces(ref)
    for j in range(len(seq(ref, "cfgs"))):
        opts = mapping(ref, f"cfgs.{j}")
        p = f"runs.{j}."
        conf = [measure(tok_conf(lp, opts["top_k"]), opts["measure"], opts["window"], DEFAULTS["bottom_percent"],
                        opts["tail_tokens"]) for _, lp in traces]
        close(out[p + "confidence"], conf, **F64, what=f"run {j}: trace confidences ({opts['measure']})")
        answered = [i for i, a in enumerate(answers) if a is not None]
        ranked = sorted(answered, key=lambda i: -conf[i])
        kept = sorted(ranked[:-(-opts["keep_percent"] * len(answered) // 100)])
        answer, totals, voters = vote([answers[i] for i in kept], [conf[i] for i in kept])
        expect_vote(out, p, answer, totals, [kept[v] for v in voters], f"run {j} ({opts})")


@check("offline_without_answers")
def offline_without_answers(out, ref):
    expect_vote(out, "", None, {}, [], "no trace has an answer")


# ---------------------------------------------------------------- deepconf_online


def consensus(totals: dict[str, float], answer) -> float:
    """Eq. (11); 0 when nothing voted."""
    return totals[answer] / sum(totals.values()) if answer is not None else 0.0


@check("online_matches_reference[*]")
def online_is_algorithm2(out, ref):
    o = mapping(ref, "options")
    n0, budget, tau, eta = o["warmup_traces"], o["budget"], o.get("consensus", 0.95), o.get("online_keep", 10)
    k, n = o.get("top_k", DEFAULTS["top_k"]), o.get("window", DEFAULTS["window"])
    traces, lengths, stopped, answers = split_traces(ref)
    expect(n0 <= len(traces) <= budget, f"{len(traces)} traces, warm-up {n0}, budget {budget}")
    equal(out["num_tokens"], int(sum(lengths)), what="tokens over all traces")
    tcs = [tok_conf(lp, k) for _, lp in traces]
    lowest = [float(groups(tc, n).min()) for tc in tcs]
    s = float(np.percentile(lowest[:n0], 100 - eta))
    close(out["threshold"], s, **F64, what="Eq. (10) over the warm-up traces")
    max_new = o.get("max_new_tokens", DEFAULTS["max_new_tokens"])
    for i, ((ids, _), tc) in enumerate(zip(traces, tcs, strict=True)):
        below = np.nonzero(groups(tc, n) < s)[0] if len(tc) >= n else np.array([], dtype=int)
        if i < n0:
            expect(not stopped[i], f"warm-up trace {i} is generated in full")
        elif stopped[i]:
            expect(len(below) > 0 and below[0] + n == lengths[i], f"trace {i} stops at its first group below s")
        else:
            expect(len(below) == 0, f"trace {i} has a group below s and was not stopped")
        if not stopped[i] and lengths[i] < max_new:
            equal(int(ids[-1]), EOS, what=f"trace {i} ends with EOS")
    # the vote and the consensus after the warm-up and after each completed trace (Algorithm 2, lines 3-7)
    voting = list(range(n0))
    history = [vote([answers[i] for i in voting], [lowest[i] for i in voting])]
    for i in range(n0, len(traces)):
        if not stopped[i]:
            voting.append(i)
            history.append(vote([answers[j] for j in voting], [lowest[j] for j in voting]))
    betas = [consensus(totals, answer) for answer, totals, _ in history]
    expect(all(b < tau for b in betas[:-1]), f"sampling went on after consensus {betas} >= {tau}")
    expect(betas[-1] >= tau or len(traces) == budget, "sampling stopped before consensus or budget")
    if betas[-1] >= tau:
        expect(len(traces) == n0 or not stopped[-1], "sampling stops right after the trace that settles the vote")
    answer, totals, voters = history[-1]
    expect_vote(out, "", answer, totals, [voting[v] for v in voters], "final vote")
    close(out["consensus"], betas[-1], **F64, what="Eq. (11)")
    finite(np.asarray(lowest), "lowest group confidences")
