"""Trusted checks for cot-decoding/1 (never enter the sandbox): the confidence of Eq. (1) and the choices of
Section 3 recomputed independently (a sort of each row for the top two probabilities, answers found by scanning
the digits), hand-derived values, and the structure of the decoding paths Section 3.1 describes. Inputs are read
from the fixtures and from `ref`, never from `out`.

Ties: the docstring of `choose_answer` breaks them in branch order, but aggregated confidences are sums whose last
bit depends on the order of addition; so any answer (and any path of it) within 1e-12 of the best is accepted."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lmrbench.checks import check, close, equal, expect

with open(Path(__file__).parent / "fixtures" / "cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

TOL = dict(rtol=1e-9, atol=1e-12)
TIE = 1e-12
DIGITS = range(3, 13)  # token ids of the digits 0-9


def seq(out: dict, key: str) -> list:
    """A list output, read back from its flattened keys (`key.0`, `key.1`, ...)."""
    marker = out[key]
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key} is not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def margin(rows) -> float:
    # Eq. (1): mean over the answer's positions of (largest probability - second largest)
    vals = [sorted(r, reverse=True) for r in rows]
    return float(np.mean([v[0] - v[1] for v in vals]))


def answer_of(tokens):
    # the last maximal run of digit tokens
    idx = [i for i, t in enumerate(tokens) if t in DIGITS]
    if not idx:
        return None
    end = idx[-1] + 1
    start = end - 1
    while start > 0 and tokens[start - 1] in DIGITS:
        start -= 1
    return start, end, "".join(str(t - 3) for t in tokens[start:end])


def scores_of(pairs, aggregate: bool) -> dict:
    out: dict = {}
    for text, conf in pairs:
        if text is None:
            continue
        out[text] = out.get(text, 0.0) + conf if aggregate else max(out.get(text, conf), conf)
    return out


def judge_choice(got: dict, pairs, aggregate: bool, what: str) -> None:
    """got: the candidate's {answer, best_branch, scores}; pairs: (answer text, confidence) per branch."""
    want = scores_of(pairs, aggregate)
    if not want:
        equal(got["answer"], None, what=f"{what}: no answer")
        equal(got["best_branch"], None, what=f"{what}: no branch")
        return
    top = max(want.values())
    expect(got["answer"] in {a for a, s in want.items() if s >= top - TIE},
           f"{what}: the answer {got['answer']!r} is not one of largest score ({top})")
    best = max(c for a, c in pairs if a == got["answer"])
    ok = {b for b, (a, c) in enumerate(pairs) if a == got["answer"] and c >= best - TIE}
    expect(got["best_branch"] in ok, f"{what}: branch {got['best_branch']} is not a best path of the answer")
    close(np.array([got["scores"][a] for a in want]), np.array(list(want.values())), **TOL, what=f"{what}: scores")


@check("path_confidence_hand")
def confidence_hand(out, ref):
    # rows: [.7,.2,.1] -> .5; [.1,.5,.4] -> .1; [.3,.3,.4] -> .1; [.05,.9,.05] -> .85
    close(out["one"], 0.1, **TOL, what="span [1, 2)")
    close(out["two"], (0.1 + 0.85) / 2, **TOL, what="span [2, 4): mean of the margins")
    close(out["all"], (0.5 + 0.1 + 0.1 + 0.85) / 4, **TOL, what="span [0, 4)")
    close(out["first"], 0.5, **TOL, what="span [0, 1)")


@check("score_paths_hand")
def scoring(out, ref):
    for i, c in enumerate(CASES["scoring"]):
        found = answer_of(c["tokens"])
        got = out[f"paths.{i}.answer"]
        if found is None:
            equal(got, None, what=f"path {i}: no answer")
            equal(out[f"paths.{i}.confidence"], None, what=f"path {i}: no confidence")
            continue
        start, end, text = found
        equal(got, text, what=f"path {i}: answer")
        close(out[f"paths.{i}.confidence"], margin(c["probs"][start:end]), **TOL, what=f"path {i}: Eq. (1)")
    # hand: path 0 is "so 4 so 1 2": the answer is "12" at [3, 5); path 5 "so 5 5 5": "555" at [1, 4)
    equal(out["paths.0.answer"], "12", what="last number")
    equal(out["paths.5.answer"], "555", what="a multi-digit answer")


@check("choose_answer_hand[*]")
def choice_hand(out, ref):
    pairs = CASES["choosing"][ref["case"]]
    judge_choice({k: out.get(f"best_path.{k}") for k in ("answer", "best_branch")} |
                 {"scores": {k[len("best_path.scores."):]: v for k, v in out.items()
                             if k.startswith("best_path.scores.")}}, pairs, False, "best path")
    judge_choice({k: out.get(f"aggregate.{k}") for k in ("answer", "best_branch")} |
                 {"scores": {k[len("aggregate.scores."):]: v for k, v in out.items()
                             if k.startswith("aggregate.scores.")}}, pairs, True, "aggregated")


@check("choose_answer_hand[0]")
def choice_hand_values(out, ref):
    # best path: "12" 0.5 > "7" 0.375; aggregated: "12" 0.5 + 0.125 = 0.625, "7" 0.25 + 0.375 = 0.625
    equal(out["best_path.answer"], "12", what="best single path")
    close(out["aggregate.scores.12"], 0.625, **TOL, what="sum of the paths of 12")
    close(out["aggregate.scores.7"], 0.625, **TOL, what="sum of the paths of 7")


@check("choose_answer_hand[4]")
def choice_hand_values_4(out, ref):
    # best path: "9" (0.3); aggregated: "2" 0.1 + 0.15 + 0.1 = 0.35, "9" 0.3 + 0.05 = 0.35
    equal(out["best_path.answer"], "9", what="best single path")
    equal(out["best_path.best_branch"], 1, what="its branch")


@check("decode_branches_tiny_lm[*]")
def paths_structure(out, ref):
    c = CASES["decoding"][ref["case"]]
    k = min(c["num_branches"], 33)
    equal(seq(out, "branches"), list(range(k)), what="branches 0..k-1")
    first = None
    firsts = []
    for b in range(k):
        tokens = seq(out, f"tokens.{b}")
        probs = np.asarray(out[f"probs.{b}"])
        expect(len(tokens) <= c["max_new_tokens"], f"path {b} is longer than max_new_tokens")
        expect(2 not in tokens, f"path {b} contains <eos>")
        equal(probs.shape, (len(tokens), 33), what=f"path {b}: one distribution per token")
        if tokens:
            first = probs[0] if first is None else first
            close(probs[0], first, rtol=0, atol=0, what=f"path {b}: the first step's distribution")
            firsts.append(tokens[0])
        for t in range(1, len(tokens)):
            expect(tokens[t] == int(np.argmax(probs[t])), f"path {b}: token {t} is not the greedy choice")
    if first is not None:
        ranked = sorted(range(33), key=lambda t: (-first[t], t))
        expect([t for t in ranked[:k] if t != 2][: len(firsts)] == firsts,
               "the branches start with the k most probable first tokens, in decreasing order")


@check("cot_decode_tiny_lm[*]")
def cot_choice(out, ref):
    for mode, agg in (("best_path", False), ("aggregate", True)):
        n = len([k for k in out if k.startswith(f"{mode}.paths.") and k.endswith(".confidence")])
        pairs = []
        for b in range(n):
            tokens = seq(out, f"{mode}.paths.{b}.tokens")
            found = answer_of(tokens)
            equal(out[f"{mode}.paths.{b}.answer"], None if found is None else found[2], what=f"path {b}: answer")
            pairs.append((out[f"{mode}.paths.{b}.answer"], out[f"{mode}.paths.{b}.confidence"]))
        scores = {k[len(f"{mode}.scores."):]: v for k, v in out.items() if k.startswith(f"{mode}.scores.")}
        judge_choice({"answer": out[f"{mode}.answer"], "best_branch": out[f"{mode}.best_branch"], "scores": scores},
                     pairs, agg, mode)


@check("cot_decode_default_config")
def cot_default(out, ref):
    n = len([k for k in out if k.startswith("paths.") and k.endswith(".confidence")])
    equal(n, 10, what="DecodeConfig() explores 10 branches")
    pairs = [(out[f"paths.{b}.answer"], out[f"paths.{b}.confidence"]) for b in range(n)]
    scores = {k[len("scores."):]: v for k, v in out.items() if k.startswith("scores.")}
    judge_choice({"answer": out["answer"], "best_branch": out["best_branch"], "scores": scores}, pairs, False,
                 "default")
