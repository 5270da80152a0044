"""Trusted checks for gepa/1 (never enter the sandbox): hand-checked values and the properties Algorithms 1 and 2
of paper.md and the repository's interfaces state, on the outputs probe_gepa.py emitted. The default (exact)
comparison with the reference's outputs has already passed. Parameters are read from `ref`, never from `out`."""
from __future__ import annotations

import json
import random
from typing import Any

from lmrbench.checks import check, equal, expect

HAND_PRUNED = {  # index of the hand-built matrix in fixtures["matrices"] (after 20 random ones) -> (P*, P-hat*)
    # paper's example: candidate 1 best on instance 0 only, candidate 2 best on 0 and 1 -> 1 is removed
    20: ([[1, 2], [2], [0]], [[2], [2], [0]]),
    # 0 and 1 best on exactly the same instances: neither is strictly dominated, both stay
    21: ([[0, 1], [0, 1], [2]], [[0, 1], [0, 1], [2]]),
    # 0's instances are covered by 1 and 2 together, but by neither alone: nothing is dominated
    22: ([[0, 1], [0, 2], [1], [2]], [[0, 1], [0, 2], [1], [2]]),
    # chain {0} < {0,1} < {0,1,2} for candidates 0 < 1 < 2: only 2 (and 3, best on instance 3) stay
    23: ([[0, 1, 2], [1, 2], [2], [3]], [[2], [2], [2], [3]]),
    # every candidate ties everywhere: same sets, none dominated
    24: ([[0, 1, 2], [0, 1, 2]], [[0, 1, 2], [0, 1, 2]]),
}


def unflatten(out: dict[str, Any], key: str) -> Any:
    """Rebuild the list/dict emitted under `key` from the flattened outputs."""
    value = out[key]
    if isinstance(value, tuple) and value[0] == "seq":
        return [unflatten(out, f"{key}.{i}") for i in range(value[1])]
    if isinstance(value, tuple) and value[0] == "map":
        return {k: unflatten(out, f"{key}.{k}") for k in value[1].split(",") if k}
    return value


def fronts_of(scores: list[list[float]]) -> list[list[int]]:
    """P*[i] of Algorithm 2 (lines 3-6)."""
    return [[k for k, row in enumerate(scores) if row[i] == max(r[i] for r in scores)] for i in range(len(scores[0]))]


def pruned_of(fronts: list[list[int]]) -> list[list[int]]:
    """Lines 7-12 of Algorithm 2 with the dominance of Section 3.3 (best everywhere the other is, and more)."""
    wins: dict[int, set[int]] = {}
    for i, front in enumerate(fronts):
        for k in front:
            wins.setdefault(k, set()).add(i)
    gone = {k for k in wins if any(wins[k] < wins[o] for o in wins)}
    return [[k for k in front if k not in gone] for front in fronts]


def draw(rng: random.Random, weights: dict[int, int]) -> int:
    """gepa.selection.sample_proportional, the repository's sampler, restated."""
    u = rng.random() * sum(weights.values())
    for key in sorted(weights):
        u -= weights[key]
        if u < 0:
            return key
    return max(k for k in weights if weights[k] > 0)


@check("fronts_and_pruning[*]")
def fronts_follow_algorithm_2(out, ref):
    scores = json.loads(ref["scores"])
    fronts, pruned = unflatten(out, "fronts"), unflatten(out, "pruned")
    equal(fronts, fronts_of(scores), what="P*[i]")
    equal(pruned, pruned_of(fronts_of(scores)), what="P-hat*[i]")
    expect(out["input_unchanged"] is True, "prune_dominated modified its input")
    for i, front in enumerate(pruned):
        expect(len(front) > 0, f"instance {i}: a Pareto set became empty (a best candidate is never removed)")


@check("fronts_and_pruning[2?]")
def hand_pruning(out, ref):
    index = [k for k in HAND_PRUNED if ref["scores"] == json.dumps(_HAND_SCORES[k])]
    expect(len(index) == 1, "hand-built matrix not found")
    fronts, pruned = HAND_PRUNED[index[0]]
    equal(unflatten(out, "fronts"), fronts, what="hand-built P*")
    equal(unflatten(out, "pruned"), pruned, what="hand-built P-hat*")


_HAND_SCORES = {20: [[0.0, 0.0, 1.0], [1.0, 0.25, 0.0], [1.0, 0.5, 0.0]],
                21: [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.5, 1.0]],
                22: [[1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]],
                23: [[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.5], [0.0, 0.0, 0.0, 1.0]],
                24: [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]}


@check("selection_draws[*]")
def draws_are_frequency_weighted(out, ref):
    scores = json.loads(ref["scores"])
    pruned = pruned_of(fronts_of(scores))
    freq: dict[int, int] = {}
    for front in pruned:
        for k in front:
            freq[k] = freq.get(k, 0) + 1
    picks = [int(p) for p in out["picks"].split()]
    expect(all(p in freq for p in picks), "a dominated or never-best candidate was selected")
    expect(len(set(picks)) <= len(freq), "more distinct picks than candidates on the frontier")


@check("selection_draws[*]")
def draws_reproduce_the_repository_sampler(out, ref):
    scores = json.loads(ref["scores"])
    freq: dict[int, int] = {}
    for front in pruned_of(fronts_of(scores)):
        for k in front:
            freq[k] = freq.get(k, 0) + 1
    picks = [int(p) for p in out["picks"].split()]
    # Algorithm 2, line 14, through the repository's sampler: one rng.random() per selection, nothing else
    rng = random.Random(ref["seed"])
    equal(picks, [draw(rng, freq) for _ in picks], what="frequency-weighted draws")
    equal(out["next_random"], rng.random(), what="the generator's state after the selections")


@check("evaluate_charges_budget")
def evaluate_counts_rollouts(out, ref):
    # 5 feedback instances, then the 6 instances of D_pareto (n_pareto = 6 by default), then none
    equal(out["used_after_first"], 5, what="rollouts after evaluating 5 instances")
    equal(out["used"], 11, what="rollouts after 5 + 6 + 0 instances")
    equal(out["n_empty"], 0, what="rollouts of an empty list")
    equal(out["pool_size"], 0, what="evaluate must not touch the pool")
    # Program(("lowercase", "join with hyphens")) on a clean-only step: the outputs are hyphenated
    expect(all(" " not in o.strip() for o in unflatten(out, "outputs")), "outputs not produced by the program")


@check("initialize_pool[*]")
def initialize_is_lines_1_to_3(out, ref):
    n = ref["n_pareto"]
    equal(unflatten(out, "parents"), [None], what="A = [None]")
    equal(out["budget_used"], n, what="one rollout per D_pareto instance")
    equal(unflatten(out, "found_at"), [n], what="found_at of the seed")
    equal(len(unflatten(out, "scores")[0]), n, what="S row length")
    equal(unflatten(out, "module_cursor"), [0], what="the seed's module cursor")
    equal(out["history"], 0, what="no iteration yet")


@check("reflective_dataset_records[*]")
def reflective_records(out, ref):
    expect(out["budget_unchanged"] is True, "building the reflective dataset ran rollouts")
    equal(len(unflatten(out, "inputs")), 6, what="one record per rollout")


def trajectory_properties(out, ref, records: list[dict], start_pool: int, start_used: int) -> None:
    n, b = ref["n_pareto"], ref["minibatch_size"]
    parents, found_at = unflatten(out, "parents"), unflatten(out, "found_at")
    scores = unflatten(out, "scores")
    used, size = start_used, start_pool
    for t, rec in enumerate(records):
        expect(len(rec["minibatch"]) == b and len(set(rec["minibatch"])) == b, f"iteration {t}: minibatch")
        expect(0 <= rec["parent"] < size, f"iteration {t}: parent not in the pool")
        # Algorithm 1, line 12: accepted iff the minibatch score improved (sums of multiples of 1/8 are exact)
        expect(rec["accepted"] == (sum(rec["child_scores"]) > sum(rec["parent_scores"])), f"iteration {t}: acceptance")
        used += 2 * b + (n if rec["accepted"] else 0)  # parent and child on M, child on D_pareto if accepted
        equal(rec["rollouts_used"], used, what=f"iteration {t}: rollouts used")
        if rec["accepted"]:
            equal(rec["child"], size, what=f"iteration {t}: the new candidate's index")
            equal(parents[size], rec["parent"], what=f"iteration {t}: ancestry")
            equal(found_at[size], used, what=f"iteration {t}: found_at")
            equal(len(scores[size]), n, what=f"iteration {t}: S row")
            size += 1
        else:
            equal(rec["child"], None, what=f"iteration {t}: rejected child")
    equal(len(parents), size, what="pool size")
    equal(out["budget_used"], used, what="budget used")


@check("steps_trajectory[*]")
def steps_are_algorithm_1(out, ref):
    records = unflatten(out, "records")
    expect(out["history_is_records"] is True, "history is not the list of returned records")
    trajectory_properties(out, ref, records, 1, ref["n_pareto"])
    # round-robin module selection per candidate (a child starts at its parent's cursor, see CandidatePool)
    cursor = [0]
    for rec in records:
        equal(rec["module"], cursor[rec["parent"]], what="module chosen round-robin")
        cursor[rec["parent"]] = (cursor[rec["parent"]] + 1) % 2
        if rec["accepted"]:
            cursor.append(cursor[rec["parent"]])


@check("step_from_a_grown_pool")
def grown_pool_steps(out, ref):
    trajectory_properties(out, ref, unflatten(out, "records"), 4, 4 * ref["n_pareto"])


@check("optimize_run[*]")
def run_stops_on_budget(out, ref):
    records = unflatten(out, "records")
    n = ref["n_pareto"]
    trajectory_properties(out, ref, records, 1, n)
    budget = ref["budget"]
    expect(out["budget_used"] >= budget, "the loop stopped before the budget was exhausted")
    before_last = records[-2]["rollouts_used"] if len(records) > 1 else n
    expect(before_last < budget, "an iteration ran after the budget was exhausted")
    means = [sum(row) / len(row) for row in unflatten(out, "scores")]
    equal(out["best"], max(range(len(means)), key=lambda k: means[k]), what="best candidate on D_pareto")


@check("run_returns_best[*]")
def run_returns_the_best_candidate(out, ref):
    # Algorithm 1, line 17: the candidate with the best average score on D_pareto (CandidatePool.best_index)
    expect(out["is_program"] is True, "run() did not return a Program")
    equal(unflatten(out, "returned"), unflatten(out, "pool_best"), what="returned program")
