"""Probe for self-certainty/1: confidence measures, StreamingScorer, select and best_of_n in bon/selection.py.
Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_selfcert.py add hand-checked values and replay the paper's equations on the emitted inputs. Selections
are compared by the checks only (compare="none"), which accept every reading the paper leaves open."""
from __future__ import annotations

from pathlib import Path

import torch
from bon.batch import Batch, collate
from bon.config import MEASURES, BestOfNConfig, SamplingConfig, SelectionConfig
from bon.records import Selection
from bon.sampling import sample_responses
from bon.selection import StreamingScorer, best_of_n, response_scores, select
from bon.toy_lm import ToyLM
from lmrbench_probe import case

CASES = torch.load(Path(__file__).parent / "fixtures" / "selfcert_cases.pt", weights_only=True)
SCORE, STREAM, SELECT, DRIVER = (CASES[k] for k in ("score", "stream", "select", "driver"))
F64 = dict(rtol=1e-10, atol=1e-12)
F32 = {"f32.*": dict(rtol=2e-5, atol=2e-5)}


def tag(dtype: torch.dtype) -> str:
    return "f32" if dtype == torch.float32 else "f64"


def selection_out(sel: Selection) -> dict:
    return {"answer": sel.answer, "index": int(sel.index), "votes": {str(a): float(v) for a, v in sel.votes.items()}}


def tiny_batch(tokens: list[list[int]], response_from: list[int]) -> Batch:
    """A batch of the given rows (no BOS added), response tokens from the given position of each row on."""
    width = max(len(t) for t in tokens)
    ids = torch.zeros(len(tokens), width, dtype=torch.long)
    att = torch.zeros(len(tokens), width, dtype=torch.bool)
    resp = torch.zeros(len(tokens), width, dtype=torch.bool)
    for b, (row, start) in enumerate(zip(tokens, response_from, strict=True)):
        ids[b, :len(row)] = torch.tensor(row)
        att[b, :len(row)] = True
        resp[b, start:len(row)] = True
    return Batch(ids, att, resp)


# ---------------------------------------------------------------- response_scores


@case(params=range(len(SCORE)), outputs=F32, **F64)
def scores_match_reference(i):
    c = SCORE[i]
    batch = collate(c["prompts"], c["responses"])
    logits = c["logits"]
    out = {m: response_scores(logits.clone(), batch, m) for m in MEASURES}
    return {tag(logits.dtype): out, "logits": logits.to(torch.float64), "input_ids": batch.input_ids,
            "response_mask": batch.response_mask}


@case(**F64)
def scores_hand_values():
    # V = 4; rows: BOS-like token 0, then the response; logits at position t give the distribution of token t + 1
    dyadic = torch.log(torch.tensor([0.5, 0.25, 0.125, 0.125], dtype=torch.float64))
    uniform = torch.zeros(4, dtype=torch.float64)
    junk = torch.tensor([30.0, -7.0, 2.0, 11.0], dtype=torch.float64)
    batch = tiny_batch([[0, 3, 1, 0], [0, 2, 0], [0, 1, 1, 2]], [2, 1, 1])
    logits = torch.stack([
        torch.stack([junk, dyadic, uniform, junk]),       # prompt token 3; response tokens 1 (dyadic) and 0 (uniform)
        torch.stack([dyadic, dyadic, junk, junk]),        # response tokens 2 and 0, both from the dyadic distribution
        torch.stack([uniform, uniform, uniform, junk]),   # three tokens from the uniform distribution
    ])
    return {m: response_scores(logits, batch, m) for m in MEASURES}


@case(**F64)
def scores_ignore_unused_logits():
    c = SCORE[0]
    batch = collate(c["prompts"], c["responses"])
    logits = c["logits"].to(torch.float64)
    used = torch.zeros_like(batch.response_mask)
    used[:, :-1] = batch.response_mask[:, 1:]
    other = torch.where(used.unsqueeze(-1), logits, -logits * 3.0 + 5.0)
    return {m: torch.stack([response_scores(logits, batch, m), response_scores(other, batch, m)]) for m in MEASURES}


@case(params=["unknown_measure", "shape_mismatch", "empty_response"])
def scores_reject_bad_input(kind):
    batch = collate([[4, 5], [6]], [[7, 2], [] if kind == "empty_response" else [8]])
    logits = torch.randn(2, batch.input_ids.shape[1] + (kind == "shape_mismatch"), 22, dtype=torch.float64)
    return {"result": response_scores(logits, batch, "median" if kind == "unknown_measure" else "self_certainty")}


# ---------------------------------------------------------------- StreamingScorer


@case(params=range(len(STREAM)), **F64)
def streaming_matches_reference(i):
    c = STREAM[i]
    out = {}
    for m in MEASURES:
        scorer = StreamingScorer(c["logits"].shape[1], m)
        for logits, tokens, active in zip(c["logits"], c["tokens"], c["active"], strict=True):
            scorer(logits.clone(), tokens.clone(), active.clone())
        out[m] = scorer.scores()
    return {"scores": out, "logits": c["logits"], "tokens": c["tokens"], "active": c["active"]}


@case(params=list(MEASURES), **F64)
def streaming_agrees_with_batch_scoring(measure):
    model, prompt = ToyLM(), [7, 14, 9, 21]
    scorer = StreamingScorer(5, measure)
    responses = sample_responses(model, prompt, 5, SamplingConfig(), torch.Generator().manual_seed(3), scorer)
    batch = collate([prompt] * 5, responses)
    return {"streamed": scorer.scores(), "batched": response_scores(model(batch.input_ids), batch, measure)}


@case(params=["n0", "unknown_measure", "row_without_token"])
def streaming_rejects_bad_use(kind):
    if kind == "n0":
        return {"result": StreamingScorer(0, "self_certainty")}
    if kind == "unknown_measure":
        return {"result": StreamingScorer(2, "variance")}
    scorer = StreamingScorer(2, "entropy")
    scorer(torch.randn(2, 5, dtype=torch.float64), torch.tensor([1, 0]), torch.tensor([True, False]))
    return {"result": scorer.scores()}


# ---------------------------------------------------------------- select


@case(params=range(len(SELECT)), compare="none")
def select_matches_paper(i):
    c = SELECT[i]
    cfg = SelectionConfig(method=c["method"], power=c["power"])
    sel = select(c["scores"].clone(), list(c["answers"]), cfg)
    return {**selection_out(sel), "scores": c["scores"].to(torch.float64), "answers": list(c["answers"]),
            "method": c["method"], "power": c["power"]}


@case(compare="none")
def select_hand_values():
    scores = torch.tensor([6.0, 5.0, 4.0, 3.0, 2.0, 1.0], dtype=torch.float64)  # response k has rank k + 1
    answers: list[str | None] = ["1", "9", "09", "4", "4", "4"]
    out = {}
    for name, method, power in (("max", "max", 0.0), ("majority", "majority", 3.0), ("p0", "borda", 0.0),
                                ("p1", "borda", 1.0), ("p2", "borda", 2.0), ("p4", "borda", 4.0)):
        out[name] = selection_out(select(scores, answers, SelectionConfig(method=method, power=power)))
    out["max_unanswered"] = selection_out(select(scores, [None, *answers[1:]], SelectionConfig(method="max")))
    return out


@case(params=["empty", "length_mismatch", "negative_power", "unknown_method", "two_d_scores"])
def select_rejects_bad_input(kind):
    scores = torch.tensor([1.0, 2.0], dtype=torch.float64)
    answers: list[str | None] = ["1", "2"]
    cfg = SelectionConfig(method="borda", power=1.0)
    if kind == "empty":
        scores, answers = torch.zeros(0, dtype=torch.float64), []
    elif kind == "length_mismatch":
        answers = ["1"]
    elif kind == "negative_power":
        cfg = SelectionConfig(method="borda", power=-0.5)
    elif kind == "unknown_method":
        cfg = SelectionConfig(method="median", power=1.0)  # type: ignore[arg-type]
    else:
        scores = scores.reshape(1, 2)
    return {"result": select(scores, answers, cfg)}


# ---------------------------------------------------------------- best_of_n (end to end, last: the costliest)


@case(params=["n0", "batch0", "batch0_streaming"])
def best_of_n_rejects_bad_config(kind):
    cfg = {"n0": BestOfNConfig(n=0), "batch0": BestOfNConfig(score_batch_size=0),
           "batch0_streaming": BestOfNConfig(score_batch_size=0, streaming=True)}[kind]
    return {"result": best_of_n(ToyLM(), [[4, 21]], cfg, torch.Generator().manual_seed(0))}


@case
def best_of_n_without_prompts():
    return {"results": len(best_of_n(ToyLM(), [], BestOfNConfig(), torch.Generator().manual_seed(0)))}


@case(params=range(len(DRIVER)), outputs={"selection*": {"compare": "none"}}, **F64)
def best_of_n_end_to_end(i):
    c = DRIVER[i]
    cfg = BestOfNConfig(n=c["n"], score_batch_size=c["score_batch_size"], streaming=c["streaming"],
                        sampling=SamplingConfig(temperature=c["temperature"]),
                        selection=SelectionConfig(method=c["method"], measure=c["measure"], power=c["power"]))
    generator = torch.Generator().manual_seed(c["seed"])
    results = best_of_n(ToyLM(cfg.model), [list(p) for p in c["prompts"]], cfg, generator)
    return {"results": [{"responses": [torch.tensor(r, dtype=torch.long) for r in res.responses],
                         "scores": res.scores, "answers": list(res.answers)} for res in results],
            "selection": [selection_out(res.selection) for res in results],
            "options": {k: v for k, v in c.items() if k != "prompts"}}
