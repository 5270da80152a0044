"""Probe for cot-decoding/1: branching, answer confidence, scoring and the choice of the answer of
cotdec/decoding.py. Runs in the sandbox; emits outputs only, never compares.

All arithmetic is float64 (the model included): confidences and distributions at rtol 1e-9 (NOTES.md). The chosen
answer and branch are judged by check_cot.py, which accepts any answer or branch tied within 1e-12 (summation
order), and otherwise the reference's."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from cotdec.answers import AnswerSpan
from cotdec.config import DecodeConfig
from cotdec.decoding import choose_answer, cot_decode, decode_branches, path_confidence, score_paths
from cotdec.model import TinyLM
from cotdec.results import DecodedPath
from cotdec.tokenizer import Tokenizer
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
TOL = dict(rtol=1e-9, atol=1e-12)
NONE = {"compare": "none"}
CHOICE = {f"{mode}.{key}": NONE for mode in ("best_path", "aggregate") for key in ("answer", "best_branch")}


def path_out(p: DecodedPath) -> dict:
    return {"tokens": list(p.tokens), "answer": None if p.answer is None else p.answer.text,
            "span": None if p.answer is None else [p.answer.start, p.answer.end], "confidence": p.confidence}


@case(**TOL)
def path_confidence_hand():
    probs = torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.05, 0.9, 0.05]],
                         dtype=torch.float64)
    return {"one": path_confidence(probs, AnswerSpan(1, 2, "x")),
            "two": path_confidence(probs, AnswerSpan(2, 4, "xy")),
            "all": path_confidence(probs, AnswerSpan(0, 4, "wxyz")),
            "first": path_confidence(probs, AnswerSpan(0, 1, "w"))}


@case(**TOL)
def score_paths_hand():
    tok = Tokenizer()
    paths = [DecodedPath(i, c["tokens"], torch.tensor(c["probs"], dtype=torch.float64).reshape(len(c["tokens"]), 33))
             for i, c in enumerate(CASES["scoring"])]
    scored = score_paths(paths, tok)
    return {"paths": [path_out(p) for p in scored]}


@case(params=range(len(CASES["choosing"])), **TOL, outputs=CHOICE)
def choose_answer_hand(i):
    paths = []
    for branch, (text, conf) in enumerate(CASES["choosing"][i]):
        span = None if text is None else AnswerSpan(0, len(text), text)
        paths.append(DecodedPath(branch, [], torch.zeros(0, 33, dtype=torch.float64), span, conf))
    out = {"case": i}
    for mode in (False, True):
        answer, best, scores = choose_answer(paths, aggregate=mode)
        out["aggregate" if mode else "best_path"] = {"answer": answer, "best_branch": best, "scores": scores}
    return out


@case(params=range(len(CASES["decoding"])), **TOL)
def decode_branches_tiny_lm(i):
    c = CASES["decoding"][i]
    tok = Tokenizer()
    model = TinyLM(len(tok))
    cfg = DecodeConfig(num_branches=c["num_branches"], max_new_tokens=c["max_new_tokens"])
    paths = decode_branches(model, tok.encode(c["prompt"]), cfg, tok.eos_id)
    return {"case": i, "branches": [p.branch for p in paths], "tokens": [list(p.tokens) for p in paths],
            "probs": [p.probs for p in paths]}


@case(params=range(len(CASES["decoding"])), **TOL, outputs=CHOICE)
def cot_decode_tiny_lm(i):
    c = CASES["decoding"][i]
    tok = Tokenizer()
    model = TinyLM(len(tok))
    out = {"case": i}
    for mode in (False, True):
        cfg = DecodeConfig(num_branches=c["num_branches"], max_new_tokens=c["max_new_tokens"], aggregate=mode)
        res = cot_decode(model, tok, c["prompt"], cfg)
        out["aggregate" if mode else "best_path"] = {
            "answer": res.answer, "best_branch": res.best_branch, "scores": res.answer_scores,
            "paths": [path_out(p) for p in res.paths]}
    return out


@case(**TOL, outputs={"answer": NONE, "best_branch": NONE})
def cot_decode_default_config():
    tok = Tokenizer()
    res = cot_decode(TinyLM(len(tok), seed=3), tok, "q: i have 4 apples . the answer is")
    return {"answer": res.answer, "best_branch": res.best_branch, "scores": res.answer_scores,
            "paths": [path_out(p) for p in res.paths]}
