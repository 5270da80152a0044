"""Trusted checks for self-certainty/1 (never enter the sandbox): hand-checked values, and an independent numpy
replay of paper.md's equations on the inputs the probe emitted. Where paper.md leaves a convention open (whether
responses without an answer take part in the ranking of Eq. (14); which of several equally voted answers wins;
which spelling of equivalent answers names a vote), every reading is accepted. Parameters are read from `ref`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-10, atol=1e-12)
F32 = dict(rtol=2e-5, atol=2e-5)
LN2 = math.log(2.0)
MEASURES = ("self_certainty", "entropy", "distributional_perplexity", "avg_logprob", "perplexity")
TIE = 1e-9  # totals this close (relative) count as a tie: either answer may win


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


def log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def confidence(rows: list[np.ndarray], tokens: list[int], measure: str) -> float:
    """Eqs. (4), (5), (8), (9), (12) over a response: rows[i] are the logits of p_i, tokens[i] = y_i."""
    lps = [log_softmax(r) for r in rows]
    n, v = len(lps), len(rows[0])
    if measure == "self_certainty":                                   # Eq. (12)
        return float(-sum(np.log(v * np.exp(lp)).sum() for lp in lps) / (n * v))
    ent = sum(float(-(np.exp(lp) * lp).sum()) for lp in lps) / n     # Eq. (7) averaged
    if measure == "entropy":                                          # Eq. (8)
        return -ent
    if measure == "distributional_perplexity":                        # -Eq. (9)
        return -math.exp(ent)
    avg = sum(float(lp[t]) for lp, t in zip(lps, tokens, strict=True)) / n   # Eq. (4)
    return avg if measure == "avg_logprob" else -math.exp(-avg)                # -Eq. (5)


def canon(answer: str | None) -> int | None:
    """The repository's answer equivalence (`same_answer`: the same number, leading zeros aside)."""
    return None if answer is None else int(answer)


def borda_readings(scores: list[float], answers: list, power: float) -> list[dict[int, float]]:
    """Eq. (15)'s totals per answer, under both readings of which responses are ranked in Eq. (14): all N, or
    only the responses that have an answer (N then counting those)."""
    out = []
    for ranked in (range(len(scores)), [k for k, a in enumerate(answers) if a is not None]):
        order = sorted(ranked, key=lambda k: -scores[k])
        totals: dict[int, float] = {}
        for r, k in enumerate(order, start=1):
            if answers[k] is not None:
                key = canon(answers[k])
                assert key is not None
                totals[key] = totals.get(key, 0.0) + float(len(order) - r + 1) ** power
        out.append(totals)
    return out


def expect_selection(out: dict, prefix: str, scores: list[float], answers: list, method: str, power: float,
                     what: str) -> None:
    """Eq. (13) for "max"; Eq. (15) (p = 0 for "majority", i.e. Eq. (3)) for the voting methods; the `Selection`
    docstring for index and votes."""
    got_answer, got_index = out[f"{prefix}answer"], out[f"{prefix}index"]
    votes = mapping(out, f"{prefix}votes")
    best = max(range(len(scores)), key=lambda k: scores[k])
    if method == "max":
        equal((got_answer, got_index, votes), (answers[best], best, {}), what=f"{what}: most confident response")
        return
    if all(a is None for a in answers):
        equal((got_answer, votes), (None, {}), what=f"{what}: no answer to vote for")
        expect(isinstance(got_index, int) and 0 <= got_index < len(scores), f"{what}: index out of range")
        return
    spellings = {canon(a): set() for a in answers if a is not None}
    for a in answers:
        if a is not None:
            spellings[canon(a)].add(a)
    got = {}
    for key, total in votes.items():
        expect(key in spellings.get(canon(key), set()), f"{what}: vote key {key!r} is no response's answer")
        expect(canon(key) not in got, f"{what}: equivalent answers {key!r} counted apart")
        got[canon(key)] = total
    p = 0.0 if method == "majority" else power
    matched = None
    for totals in borda_readings(scores, answers, p):
        if sorted(got) == sorted(totals) and all(math.isclose(got[a], totals[a], rel_tol=1e-9) for a in totals):
            matched = totals
    expect(matched is not None, f"{what}: votes {votes} are not Eq. (15)'s totals under either reading")
    assert matched is not None
    top = max(matched.values())
    winners = {a for a, t in matched.items() if t >= top * (1 - TIE)}
    expect(got_answer in {s for a in winners for s in spellings[a]},
           f"{what}: answer {got_answer!r} does not have the most votes {winners}")
    members = [k for k, a in enumerate(answers) if a is not None and canon(a) == canon(got_answer)]
    equal(got_index, max(members, key=lambda k: scores[k]), what=f"{what}: most confident response of the answer")


# ---------------------------------------------------------------- response_scores


@check("scores_match_reference[*]")
def scores_are_the_equations(out, ref):
    key = "f32" if "f32.self_certainty" in out else "f64"
    logits, ids, mask = ref["logits"], ref["input_ids"].astype(np.int64), ref["response_mask"].astype(bool)
    for m in MEASURES:
        want = []
        for b in range(ids.shape[0]):
            pos = np.flatnonzero(mask[b])
            want.append(confidence([logits[b, t - 1] for t in pos], [int(ids[b, t]) for t in pos], m))
        close(out[f"{key}.{m}"], want, **(F32 if key == "f32" else F64), what=m)
        equal(out[f"{key}.{m}#dtype"], "float32" if key == "f32" else "float64", what=f"{m} dtype")


@check("scores_hand_values")
def scores_hand_values(out, ref):
    # V = 4. dyadic p = (1/2, 1/4, 1/8, 1/8): H = 1.75 ln 2; KL(U || p) = -(1/4)(ln 2 + 0 - ln 2 - ln 2) = ln2 / 4.
    # uniform: H = 2 ln 2, KL = 0, every token has log-probability -2 ln 2.
    # row 0: token 1 from dyadic (1/4), token 0 from uniform (1/4); row 1: tokens 2 (1/8) and 0 (1/2) from dyadic;
    # row 2: three tokens from uniform.
    close(out["self_certainty"], [LN2 / 8, LN2 / 4, 0.0], **F64, what="Eq. (12)")
    close(out["entropy"], [-1.875 * LN2, -1.75 * LN2, -2 * LN2], **F64, what="Eq. (8)")
    close(out["distributional_perplexity"], [-(2**1.875), -(2**1.75), -4.0], **F64, what="-Eq. (9)")
    close(out["avg_logprob"], [-2 * LN2, -2 * LN2, -2 * LN2], **F64, what="Eq. (4): (ln 1/4 + ln 1/4) / 2 etc.")
    close(out["perplexity"], [-4.0, -4.0, -4.0], **F64, what="-Eq. (5)")


@check("scores_ignore_unused_logits")
def scores_ignore_unused_logits(out, ref):
    for m in MEASURES:
        close(out[m][1], out[m][0], **F64, what=f"{m}: logits that predict no response token change nothing")


# ---------------------------------------------------------------- StreamingScorer


@check("streaming_matches_reference[*]")
def streaming_is_the_equations(out, ref):
    logits, tokens, active = ref["logits"], ref["tokens"].astype(np.int64), ref["active"].astype(bool)
    for m in MEASURES:
        want = []
        for i in range(logits.shape[1]):
            steps = np.flatnonzero(active[:, i])
            want.append(confidence([logits[s, i] for s in steps], [int(tokens[s, i]) for s in steps], m))
        close(out[f"scores.{m}"], want, **F64, what=f"streamed {m}")
        equal(out[f"scores.{m}#dtype"], "float64", what=f"{m} dtype")


@check("streaming_agrees_with_batch_scoring[*]")
def streaming_agrees(out, ref):
    close(out["streamed"], out["batched"], **F64, what="StreamingScorer vs response_scores on the same responses")


# ---------------------------------------------------------------- select


@check("select_matches_paper[*]")
def select_is_eq13_to_15(out, ref):
    scores = [float(s) for s in np.asarray(ref["scores"])]
    expect_selection(out, "", scores, seq(ref, "answers"), ref["method"], ref["power"], "selection")


@check("select_hand_values")
def select_hand_values(out, ref):
    # ranks 1..6 answer "1", "9", "09", "4", "4", "4"; v(r) = (7 - r)^p.
    # p = 0: "1" 1, "9" 2, "4" 3 -> "4". p = 1: 6, 5 + 4 = 9, 3 + 2 + 1 = 6 -> "9".
    # p = 2: 36, 25 + 16 = 41, 9 + 4 + 1 = 14 -> "9". p = 4: 1296, 625 + 256 = 881, 81 + 16 + 1 = 98 -> "1".
    want = {"p0": ("4", 3, {1: 1, 9: 2, 4: 3}), "majority": ("4", 3, {1: 1, 9: 2, 4: 3}),
            "p1": ("9", 1, {1: 6, 9: 9, 4: 6}), "p2": ("9", 1, {1: 36, 9: 41, 4: 14}),
            "p4": ("1", 0, {1: 1296, 9: 881, 4: 98})}
    equal((out["max.answer"], out["max.index"], mapping(out, "max.votes")), ("1", 0, {}), what="max")
    # Eq. (13): the most confident response is chosen even when it has no answer (`Selection`: answer None then)
    equal((out["max_unanswered.answer"], out["max_unanswered.index"]), (None, 0), what="max, top response unanswered")
    for name, (answer, index, totals) in want.items():
        equal((out[f"{name}.answer"], out[f"{name}.index"]), (answer, index), what=f"{name}: answer and index")
        got = {int(k): v for k, v in mapping(out, f"{name}.votes").items()}
        equal(sorted(got), sorted(totals), what=f"{name}: answers voted for")
        for a, t in totals.items():
            close(got[a], t, rtol=1e-12, what=f"{name}: votes of {a}")


# ---------------------------------------------------------------- best_of_n


@check("best_of_n_end_to_end[*]")
def best_of_n_selects(out, ref):
    opts = mapping(ref, "options")
    results = seq(ref, "results")
    for k in range(len(results)):
        scores = [float(s) for s in np.asarray(ref[f"results.{k}.scores"])]
        answers = seq(ref, f"results.{k}.answers")
        equal(len(scores), opts["n"], what="N responses")
        expect(len(set(scores)) == len(scores), "fixture: responses tie in confidence")
        expect_selection(out, f"selection.{k}.", scores, answers, opts["method"], opts["power"], f"prompt {k}")
