"""Probe for s1-budget/1: budget forcing and the scaling metrics in s1/budget.py. Runs in the sandbox; emits
outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_s1.py replay each generation's decisions against the model's greedy choices, which this probe
reads from the repository's model (not from the code under test), and hold hand-checked metric values."""
from __future__ import annotations

from pathlib import Path

import torch

from evaluate import sweep
from lmrbench_probe import case
from s1.budget import budget_forced_generate, control, performance, scaling
from s1.config import BudgetConfig, ModelConfig
from s1.data import Question
from s1.generation import Generation
from s1.model import ToyReasoner
from s1.tokenizer import ToyTokenizer

CASES = torch.load(Path(__file__).parent / "fixtures" / "s1_cases.pt", weights_only=True)
PROMPTS, TRUTH, BUDGETS, METRICS = (CASES[k] for k in ("prompts", "truth", "budgets", "metrics"))
F64 = dict(rtol=1e-12, atol=1e-14)
TOK = ToyTokenizer()


def make_budget(b: dict) -> BudgetConfig:
    return BudgetConfig(max_thinking_tokens=None if b["max"] < 0 else b["max"], min_thinking_tokens=b["min"],
                        min_waits=b["waits"], wait=b["wait"], answer_prefix=b["prefix"],
                        max_answer_tokens=b["max_answer"])


def greedy_along(model: ToyReasoner, gen: Generation) -> tuple[list[int], list[int]]:
    """The model's greedy choice before each thinking token (and once after the last), and before each answer
    token, along the generation's own sequence."""
    state = model.advance(model.start(gen.prompt_ids), TOK.think_id)
    thinking = []
    for t in [*gen.thinking_ids, None]:
        thinking.append(int(torch.argmax(model.logits(state))))
        if t is not None:
            state = model.advance(state, t)
    state = model.advance(state, TOK.end_think_id)
    answer = []
    for t in gen.answer_ids:
        answer.append(int(torch.argmax(model.logits(state))))
        state = model.advance(state, t)
    return thinking, answer


def generation_out(model: ToyReasoner, gen: Generation) -> dict:
    greedy_thinking, greedy_answer = greedy_along(model, gen)
    return {"thinking_ids": [int(t) for t in gen.thinking_ids], "answer_ids": [int(t) for t in gen.answer_ids],
            "waits": int(gen.waits), "forced_end": bool(gen.forced_end), "answer": gen.answer,
            "num_thinking_tokens": int(gen.num_thinking_tokens), "prompt_ids": [int(t) for t in gen.prompt_ids],
            "greedy_thinking": greedy_thinking, "greedy_answer": greedy_answer}


def vocab_ids(b: dict) -> dict:
    return {"wait": TOK.encode(b["wait"]), "prefix": TOK.encode(b["prefix"]), "end": TOK.end_think_id,
            "eos": TOK.eos_id, "answer_mark": TOK.encode("Answer:")[0],
            "digits": [TOK.digit_id(d) for d in range(10)]}


# ---------------------------------------------------------------- budget_forced_generate


def budget_id(b: dict) -> str:
    return (f"max{b['max']}-min{b['min']}-waits{b['waits']}-{b['wait'].replace(' ', '_')}-"
            f"{b['prefix'].replace(' ', '_')}-ans{b['max_answer']}-seed{b['model_seed']}")


@case(params=range(len(BUDGETS)), ids=[budget_id(b) for b in BUDGETS], compare="exact")
def generation_matches_reference(i):
    b = BUDGETS[i]
    model = ToyReasoner(TOK, ModelConfig(seed=b["model_seed"]))
    gens = [generation_out(model, budget_forced_generate(model, TOK, list(p), make_budget(b))) for p in PROMPTS]
    return {"generations": gens, "budget": dict(b), "ids": vocab_ids(b)}


@case
def prompt_is_not_modified():
    prompt = list(PROMPTS[0])
    model = ToyReasoner(TOK)
    gen = budget_forced_generate(model, TOK, prompt, BudgetConfig(max_thinking_tokens=3, min_waits=1))
    return {"prompt": prompt, "prompt_ids": [int(t) for t in gen.prompt_ids], "thinking": len(gen.thinking_ids)}


@case(params=["min", "waits", "max", "answer", "empty_wait"])
def generation_rejects_bad_budget(kind):
    b = {"min": BudgetConfig(min_thinking_tokens=-1), "waits": BudgetConfig(min_waits=-2),
         "max": BudgetConfig(max_thinking_tokens=-1), "answer": BudgetConfig(max_answer_tokens=-1),
         "empty_wait": BudgetConfig(min_waits=1, wait="")}[kind]
    return {"result": budget_forced_generate(ToyReasoner(TOK), TOK, list(PROMPTS[0]), b)}


# ---------------------------------------------------------------- control, scaling, performance


@case(params=range(len(METRICS)), **F64)
def metrics_match_reference(i):
    c = METRICS[i]
    return {"control": control(list(c["compute"]), c["a_min"], c["a_max"]),
            "scaling": scaling(list(c["compute"]), list(c["accuracy"])),
            "performance": performance(list(c["accuracy"])),
            "compute": list(c["compute"]), "accuracy": list(c["accuracy"]), "a_min": c["a_min"], "a_max": c["a_max"]}


@case(**F64)
def metrics_hand_values():
    return {"control_inclusive": control([4.0, 8.0, 16.0, 17.0], 4.0, 16.0),
            "control_none": control([1.0, 2.0], 3.0, 5.0),
            "control_all": control([3.0], 3.0, 3.0),
            "scaling_three": scaling([1.0, 2.0, 4.0], [0.1, 0.3, 0.2]),
            "scaling_unsorted": scaling([4.0, 1.0, 2.0], [0.2, 0.1, 0.3]),
            "scaling_two": scaling([10.0, 30.0], [0.5, 0.4]),
            "scaling_ints": scaling([2, 6], [1, 3]),
            "performance": performance([0.2, 0.75, 0.5]),
            "performance_one": performance([0.125])}


@case(params=["control_empty", "control_bounds", "scaling_one", "scaling_lengths", "scaling_repeated",
              "performance_empty"])
def metrics_reject_bad_input(kind):
    calls = {"control_empty": lambda: control([], 0.0, 1.0),
             "control_bounds": lambda: control([1.0], 2.0, 1.0),
             "scaling_one": lambda: scaling([1.0], [0.5]),
             "scaling_lengths": lambda: scaling([1.0, 2.0], [0.5]),
             "scaling_repeated": lambda: scaling([1.0, 2.0, 1.0], [0.1, 0.2, 0.3]),
             "performance_empty": lambda: performance([])}
    return {"result": calls[kind]()}


# ---------------------------------------------------------------- end to end: evaluate.sweep


@case(**F64)
def sweep_of_maxima_and_waits():
    model = ToyReasoner(TOK)
    questions = [Question(list(p), t) for p, t in zip(PROMPTS, TRUTH, strict=True)]
    out = {}
    for name, budgets, lo, hi in (("maximum", [BudgetConfig(max_thinking_tokens=m) for m in (2, 6, 12)], 0.0, 6.0),
                                  ("waits", [BudgetConfig(min_waits=w) for w in (0, 1, 3)], 14.0, 40.0)):
        report = sweep(model, TOK, questions, budgets, lo, hi)
        out[name] = {"compute": [p.compute for p in report.points], "accuracy": [p.accuracy for p in report.points],
                     "control": report.control, "scaling": report.scaling, "performance": report.performance,
                     "a_min": lo, "a_max": hi}
    return out
