"""Probe for gepa/1: Pareto-based selection and the GEPA loop in gepa/engine.py. Runs in the sandbox; emits
outputs only. Cheap unit cases first, the loop's trajectories last."""
from __future__ import annotations

import json
import random
from pathlib import Path

from gepa.config import GEPAConfig
from gepa.data import make_examples
from gepa.engine import GEPA, pareto_fronts, prune_dominated, select_candidate
from gepa.lm import RuleLM
from gepa.program import Program, seed_program
from gepa.reflection import RuleReflector
from lmrbench_probe import case
from optimize import optimize

CASES = json.loads((Path(__file__).parent / "fixtures" / "gepa_cases.json").read_text())
MATRICES, SELECT, STEPS, RUNS = CASES["matrices"], CASES["select"], CASES["steps"], CASES["runs"]


def as_lists(sets: list[set[int]]) -> list[list[int]]:
    return [sorted(s) for s in sets]


def build(data_seed: int, n_train: int, config: dict, seed: int) -> GEPA:
    trainset = make_examples(n_train, random.Random(1000 + data_seed))
    return GEPA(seed_program(), trainset, GEPAConfig(**config), RuleLM(), RuleReflector(), random.Random(seed))


def pool_state(gepa: GEPA) -> dict:
    pool = gepa.pool
    return {"instructions": [list(p.instructions) for p in pool.programs], "parents": list(pool.parents),
            "scores": pool.scores, "found_at": pool.found_at, "module_cursor": pool.module_cursor,
            "budget_used": gepa.budget.used}


def record(rec) -> dict:
    return {"parent": rec.parent, "module": rec.module, "minibatch": rec.minibatch, "instruction": rec.instruction,
            "parent_scores": rec.parent_scores, "child_scores": rec.child_scores, "accepted": rec.accepted,
            "child": rec.child, "rollouts_used": rec.rollouts_used}


# ---------------------------------------------------------------- pareto_fronts / prune_dominated


@case(params=range(len(MATRICES)), compare="exact")
def fronts_and_pruning(i):
    m = MATRICES[i]
    fronts = pareto_fronts([list(row) for row in m])
    frozen = [set(f) for f in fronts]
    pruned = prune_dominated(fronts)
    return {"scores": json.dumps(m), "fronts": as_lists(fronts), "pruned": as_lists(pruned),
            "input_unchanged": as_lists(fronts) == as_lists(frozen)}


@case(params=["empty", "empty-row", "ragged"])
def fronts_reject(kind):
    m = {"empty": [], "empty-row": [[]], "ragged": [[1.0, 0.0], [1.0]]}[kind]
    return {"result": pareto_fronts(m)}


# ---------------------------------------------------------------- select_candidate


@case(params=range(len(SELECT)), compare="exact")
def selection_draws(i):
    c = SELECT[i]
    rng = random.Random(c["seed"])
    picks = [select_candidate([list(row) for row in c["matrix"]], rng) for _ in range(c["draws"])]
    return {"scores": json.dumps(c["matrix"]), "picks": " ".join(map(str, picks)), "seed": c["seed"],
            "next_random": rng.random()}


@case(params=["empty", "ragged"])
def selection_rejects(kind):
    m = {"empty": [], "ragged": [[1.0], [1.0, 0.5]]}[kind]
    return {"result": select_candidate(m, random.Random(0))}


# ---------------------------------------------------------------- GEPA: evaluate, initialize, reflective_dataset


@case(compare="exact")
def evaluate_charges_budget():
    gepa = build(0, 18, {}, 0)
    program = Program(("lowercase", "join with hyphens"))
    first = gepa.evaluate(program, gepa.feedback_set[:5])
    used_after_first = gepa.budget.used
    second = gepa.evaluate(seed_program(), gepa.pareto_set)
    empty = gepa.evaluate(program, [])
    return {"scores": [r.feedback.score for r in first + second], "outputs": [r.trace.output for r in first],
            "texts": [r.example.text for r in first + second], "used_after_first": used_after_first,
            "used": gepa.budget.used, "n_empty": len(empty), "pool_size": len(gepa.pool.programs)}


@case(params=range(len(STEPS)), compare="exact")
def initialize_pool(i):
    c = STEPS[i]
    gepa = build(c["data_seed"], c["n_train"], c["config"], c["seed"])
    gepa.initialize()
    return {**pool_state(gepa), "history": len(gepa.history), "n_pareto": len(gepa.pareto_set),
            "next_random": gepa.rng.random()}


@case
def initialize_twice_raises():
    gepa = build(0, 18, {}, 0)
    gepa.initialize()
    return {"result": gepa.initialize()}


@case(params=[0, 1], compare="exact")
def reflective_dataset_records(module):
    gepa = build(2, 18, {}, 0)
    runs = gepa.evaluate(Program(("remove digits", "sort words")), gepa.feedback_set[:6])
    used = gepa.budget.used
    records = gepa.reflective_dataset(runs, module)
    return {"inputs": [r.input for r in records], "outputs": [r.output for r in records],
            "feedback": [r.feedback for r in records], "budget_unchanged": gepa.budget.used == used}


# ---------------------------------------------------------------- GEPA: step and run


@case
def step_before_initialize_raises():
    return {"result": build(0, 18, {}, 0).step()}


@case(params=range(len(STEPS)), compare="exact")
def steps_trajectory(i):
    c = STEPS[i]
    gepa = build(c["data_seed"], c["n_train"], c["config"], c["seed"])
    gepa.initialize()
    records = [gepa.step() for _ in range(c["steps"])]
    return {"records": [record(r) for r in records], "history_is_records": gepa.history == records,
            **pool_state(gepa), "n_pareto": len(gepa.pareto_set), "minibatch_size": gepa.config.minibatch_size}


@case(compare="exact")
def step_from_a_grown_pool():
    gepa = build(1, 18, {}, 3)
    gepa.initialize()
    grown = [Program(("lowercase", "join with hyphens")), Program(("remove digits", "join with hyphens\nsort")),
             Program(("lowercase remove digits", "sort words join with hyphens"))]
    for parent, program in enumerate(grown):
        scores = [r.feedback.score for r in gepa.evaluate(program, gepa.pareto_set)]
        gepa.pool.add(program, parent, scores, gepa.budget.used)
    records = [gepa.step() for _ in range(6)]
    return {"records": [record(r) for r in records], **pool_state(gepa), "n_pareto": len(gepa.pareto_set),
            "minibatch_size": gepa.config.minibatch_size}


@case(params=[(0, 60), (3, 100)], ids=["seed0-B60", "seed3-B100"], compare="exact")
def run_returns_best(param):
    seed, budget = param
    gepa = build(seed, 18, {"max_rollouts": budget}, seed)
    best = gepa.run()
    return {"is_program": isinstance(best, Program), "returned": list(best.instructions),
            "pool_best": list(gepa.pool.programs[gepa.pool.best_index()].instructions),
            "iterations": len(gepa.history), "budget_used": gepa.budget.used}


@case(params=range(len(RUNS)), compare="exact")
def optimize_run(i):
    c = RUNS[i]
    gepa = optimize(GEPAConfig(max_rollouts=c["budget"], **c["config"]), c["seed"])
    best = gepa.pool.best_index()
    return {"records": [record(r) for r in gepa.history], **pool_state(gepa), "best": best,
            "best_instructions": list(gepa.pool.programs[best].instructions), "budget": c["budget"],
            "n_pareto": len(gepa.pareto_set), "minibatch_size": gepa.config.minibatch_size}
