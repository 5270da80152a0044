"""Probe for gepa-engine/1: GEPA's engine reached through `gepa.optimize` and the state/selection/merge helpers it
wires together, on a fake compound system written here (pure Python, deterministic).

The fake system: a candidate has two text components, "a" and "b", each a space-separated list of words. An example
names the component it reads, a word it wants present and a word it wants absent; its score is
0.5 * [wanted word present] + 0.5 * [unwanted word absent] (objective scores: "want" and "avoid" separately). The
feedback of a trace says `need:<word>` / `drop:<word>`. The fake reflection LM reads every directive in the prompt it
receives and applies one of them, chosen from the set of directives (so the order of the minibatch never matters).
Examples come in conflicting pairs (one wants a word the other avoids), so different candidates win on different
examples and the Pareto front holds several candidates.

Runs whose course the paper and the package decide (the `current_best` selector, a training set no larger than one
minibatch) are compared with the release; runs driven by the seeded Pareto sampling are emitted with
compare="none" and judged by check_engine.py by meaning (front = per-example best, strict minibatch improvement,
metric-call accounting, budget, lineage)."""

from __future__ import annotations

import copy
import json
import random
import re
import tempfile

import gepa
from gepa.core.adapter import EvaluationBatch
from gepa.core.engine import GEPAEngine
from gepa.core.state import EvaluationCache, GEPAState, ValsetEvaluation
from gepa.gepa_utils import (
    find_dominator_programs,
    remove_dominated_programs,
    select_program_candidate_from_pareto_front,
)
from gepa.logging.experiment_tracker import create_experiment_tracker
from gepa.proposer.merge import (
    MergeProposer,
    does_triplet_have_desirable_predictors,
    filter_ancestors,
    sample_and_attempt_merge_programs_by_common_predictors,
)
from gepa.proposer.reflective_mutation.reflective_mutation import ReflectiveMutationProposer
from gepa.strategies.batch_sampler import EpochShuffledBatchSampler
from gepa.strategies.candidate_selector import CurrentBestCandidateSelector
from gepa.strategies.component_selector import RoundRobinReflectionComponentSelector
from gepa.strategies.eval_policy import FullEvaluationPolicy
from gepa.strategies.proposal_sampling import SameParentSampling
from gepa.strategies.proposal_selection import BestImprovement
from gepa.utils import MaxMetricCallsStopper
from lmrbench_probe import case

TEMPLATE = "CURRENT[[<curr_param>]]\nDATA[[<side_info>]]"

# (component, wanted word, unwanted word)
TRAIN = [
    ("a", "red", "blue"),
    ("a", "blue", "red"),
    ("b", "cat", "dog"),
    ("a", "sun", "moon"),
    ("b", "dog", "cat"),
    ("b", "tea", "gin"),
]
VAL = [
    ("a", "red", "blue"),
    ("a", "blue", "red"),
    ("b", "cat", "dog"),
    ("b", "dog", "cat"),
    ("a", "sun", "moon"),
    ("b", "tea", "gin"),
    ("a", "moon", "sun"),
]


def make_data(rows, prefix):
    return [{"id": f"{prefix}{i}", "comp": c, "want": w, "avoid": v} for i, (c, w, v) in enumerate(rows)]


def words(text):
    return set(text.split())


def score_parts(cand, ex):
    ws = words(cand[ex["comp"]])
    return (1.0 if ex["want"] in ws else 0.0), (1.0 if ex["avoid"] not in ws else 0.0)


class FakeAdapter:
    """A GEPAAdapter over the word system; logs every evaluate call."""

    propose_new_texts = None

    def __init__(self, objectives=False):
        self.calls = []
        self.objectives = objectives

    def evaluate(self, batch, candidate, capture_traces=False):
        self.calls.append({"ids": sorted(ex["id"] for ex in batch), "cand": [candidate["a"], candidate["b"]]})
        outputs, scores, trajs, objs = [], [], [], []
        for ex in batch:
            want, avoid = score_parts(candidate, ex)
            scores.append(0.5 * want + 0.5 * avoid)
            outputs.append(f"{ex['id']}:{candidate[ex['comp']]}")
            objs.append({"want": want, "avoid": avoid})
            fb = []
            if not want:
                fb.append(f"need:{ex['want']}")
            if not avoid:
                fb.append(f"drop:{ex['avoid']}")
            trajs.append({"id": ex["id"], "comp": ex["comp"], "feedback": " ".join(fb) or "ok"})
        return EvaluationBatch(
            outputs=outputs,
            scores=scores,
            trajectories=trajs if capture_traces else None,
            objective_scores=objs if self.objectives else None,
        )

    def make_reflective_dataset(self, candidate, eval_batch, components_to_update):
        out = {}
        for comp in components_to_update:
            recs = []
            for t, o in zip(eval_batch.trajectories, eval_batch.outputs, strict=True):
                if t["comp"] == comp:
                    recs.append({"Inputs": t["id"], "Generated Outputs": o, "Feedback": t["feedback"]})
            if not recs:
                recs.append({"Inputs": "none", "Generated Outputs": "none", "Feedback": "ok"})
            out[comp] = recs
        return out


class FakeLM:
    """Deterministic reflection LM: applies one directive chosen from the set it reads in the prompt."""

    def __init__(self):
        self.prompts = 0

    def __call__(self, prompt):
        self.prompts += 1
        text = prompt if isinstance(prompt, str) else str(prompt)
        cur = re.search(r"CURRENT\[\[(.*?)\]\]", text, re.S).group(1)
        ws = sorted(words(cur))
        dirs = sorted(set(re.findall(r"(need|drop):(\w+)", text)))
        if not dirs:
            return "```\n" + " ".join([*ws, "calm"]) + "\n```"
        key = sum(ord(ch) for d in dirs for ch in d[0] + d[1])
        kind, w = dirs[key % len(dirs)]
        new = set(ws) | {w} if kind == "need" else set(ws) - {w}
        return "```\n" + " ".join(sorted(new)) + "\n```"


def _ix(v):
    return -1 if v is None else v


class Recorder:
    """A GEPACallback that records each event with the fields whose meaning the callback protocol names."""

    def __init__(self):
        self.events = []

    def _add(self, name, ev, **fields):
        row = {"ev": name, "it": ev.get("iteration", -1)}
        row.update(fields)
        self.events.append(row)

    def on_optimization_start(self, e):
        self._add("start", e, train=e["trainset_size"], val=e["valset_size"])

    def on_optimization_end(self, e):
        self._add("end", e, best=e["best_candidate_idx"], total=e["total_metric_calls"])

    def on_iteration_start(self, e):
        self._add("it_start", e)

    def on_iteration_end(self, e):
        self._add("it_end", e, accepted=bool(e["proposal_accepted"]))

    def on_candidate_selected(self, e):
        self._add("selected", e, idx=e["candidate_idx"])

    def on_minibatch_sampled(self, e):
        self._add("minibatch", e, ids=sorted(e["minibatch_ids"]), train=e["trainset_size"])

    def on_evaluation_start(self, e):
        self._add("eval_start", e, idx=_ix(e["candidate_idx"]), n=e["batch_size"], traces=bool(e["capture_traces"]),
                  seed=bool(e["is_seed_candidate"]))

    def on_evaluation_end(self, e):
        self._add("eval_end", e, idx=_ix(e["candidate_idx"]), scores=list(e["scores"]),
                  traces=bool(e["has_trajectories"]), seed=bool(e["is_seed_candidate"]))

    def on_evaluation_skipped(self, e):
        self._add("skipped", e, idx=e["candidate_idx"])

    def on_valset_evaluated(self, e):
        scores = [e["scores_by_val_id"][k] for k in sorted(e["scores_by_val_id"])]
        self._add("valset", e, idx=e["candidate_idx"], scores=scores, avg=e["average_score"],
                  n=e["num_examples_evaluated"], size=e["total_valset_size"], best=bool(e["is_best_program"]))

    def on_reflective_dataset_built(self, e):
        self._add("refl_dataset", e, idx=e["candidate_idx"], comps=sorted(e["components"]))

    def on_proposal_start(self, e):
        self._add("prop_start", e, comps=sorted(e["components"]))

    def on_proposal_end(self, e):
        self._add("prop_end", e, new=dict(sorted(e["new_instructions"].items())))

    def on_candidate_accepted(self, e):
        self._add("accepted", e, idx=e["new_candidate_idx"], parents=sorted(e["parent_ids"]))

    def on_candidate_rejected(self, e):
        self._add("rejected", e)

    def on_merge_attempted(self, e):
        self._add("merge_attempted", e, parents=sorted(e["parent_ids"]))

    def on_merge_accepted(self, e):
        self._add("merge_accepted", e, idx=e["new_candidate_idx"], parents=sorted(e["parent_ids"]))

    def on_merge_rejected(self, e):
        self._add("merge_rejected", e, parents=sorted(e["parent_ids"]))

    def on_pareto_front_updated(self, e):
        self._add("front", e, front=sorted(e["new_front"]), displaced=sorted(e["displaced_candidates"]))

    def on_state_saved(self, e):
        self._add("saved", e, has_dir=e["run_dir"] is not None)

    def on_budget_updated(self, e):
        self._add("budget", e, used=e["metric_calls_used"], delta=e["metric_calls_delta"],
                  remaining=-1 if e["metric_calls_remaining"] is None else e["metric_calls_remaining"])

    def on_error(self, e):
        self._add("error", e)


SEED = {"a": "sun", "b": "gin"}


TEXT_PIECE, TEXT_PIECES = 9000, 48


def as_text(value):
    """`value` as JSON text in TEXT_PIECES strings of at most TEXT_PIECE characters, padded with empty strings: an
    output of the same shape whatever the run did (a compared output must have the reference's keys, and the
    harness keeps 10,000 characters of a string).  For the parts whose shape the package leaves open."""
    text = json.dumps(value)
    pieces = [text[i:i + TEXT_PIECE] for i in range(0, len(text), TEXT_PIECE)]
    if len(pieces) > TEXT_PIECES:
        raise ValueError(f"output of {len(text)} characters is too long")
    return pieces + [""] * (TEXT_PIECES - len(pieces))


def result_dict(res, adapter=None, lm=None, events_as_text=True):
    out = {
        "candidates": [[c["a"], c["b"]] for c in res.candidates],
        "parents": [[-1 if p is None else p for p in ps] for ps in res.parents],
        "val_subscores": [[s[k] for k in sorted(s)] for s in res.val_subscores],
        "val_keys": [sorted(s) for s in res.val_subscores],
        "agg": [float(x) for x in res.val_aggregate_scores],
        "front": [sorted(res.per_val_instance_best_candidates[k])
                  for k in sorted(res.per_val_instance_best_candidates)],
        "total_metric_calls": res.total_metric_calls,
        "discovery": list(res.discovery_eval_counts),
        "best_idx": res.best_idx,
    }
    if adapter is not None:
        out["eval_calls"] = adapter.calls
        out["n_eval_calls"] = len(adapter.calls)
        # the callback stream's length and order depend on choices the package leaves open: emitted as JSON text
        # (one output whatever its shape) and judged by meaning in check_engine.py
        out["events"] = as_text(adapter.events) if events_as_text else adapter.events
        out["budget"] = adapter.budget
    if lm is not None:
        out["lm_prompts"] = lm.prompts
    return out


def run(budget, seed=0, train=TRAIN, val=VAL, use_val=True, **kw):
    if train is SMALL_TRAIN or train is WIDE_TRAIN:
        val = DVAL
    adapter = FakeAdapter(objectives=kw.pop("objectives", False))
    lm = FakeLM()
    recorder = Recorder()
    kw.setdefault("callbacks", [recorder])
    kw.setdefault("logger", _Quiet())
    res = gepa.optimize(
        seed_candidate=dict(kw.pop("seed_candidate", SEED)),
        trainset=make_data(train, "t"),
        valset=make_data(val, "v") if use_val else None,
        adapter=adapter,
        reflection_lm=lm,
        reflection_prompt_template=TEMPLATE,
        max_metric_calls=budget,
        seed=seed,
        track_best_outputs=False,
        **kw,
    )
    adapter.events = recorder.events
    adapter.budget = budget
    return res, adapter, lm


class _Quiet:
    def log(self, *args, **kwargs):
        pass


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 2 pieces, called directly
# ---------------------------------------------------------------------------------------------------------------

FRONTS = [
    # 0 wins alone on e0; 1 on e1,e2; 2 on e2 only (subset of 1's wins -> dominated)
    ({"e0": {0}, "e1": {1}, "e2": {1, 2}}, [0.5, 0.6, 0.4]),
    # chain: 3 best on e0..e3, 1 on e0,e1 only, 2 on e0 only -> only 3 and 4 survive
    ({"e0": {1, 2, 3}, "e1": {1, 3}, "e2": {3}, "e3": {3, 4}, "e4": {4}}, [0.1, 0.3, 0.2, 0.7, 0.5]),
    # disjoint winners, nobody dominated
    ({"e0": {0}, "e1": {1}, "e2": {2}, "e3": {2}}, [0.2, 0.3, 0.4]),
    # one candidate everywhere
    ({"e0": {5}, "e1": {5}}, [0.0, 0.1, 0.1, 0.1, 0.1, 0.9]),
]


@case(params=range(len(FRONTS)))
def dominated_removal(k):
    front, scores = FRONTS[k]
    new = remove_dominated_programs({key: set(v) for key, v in front.items()}, scores=scores)
    return {
        "front": {key: sorted(new[key]) for key in sorted(new)},
        "dominators": sorted(find_dominator_programs({key: set(v) for key, v in front.items()}, scores)),
    }


SAMPLE_FRONTS = [
    ({"e0": {0}, "e1": {1}, "e2": {1}, "e3": {1, 2}, "e4": {2}, "e5": {2}, "e6": {2}}, [0.3, 0.5, 0.6]),
    ({"e0": {0}, "e1": {1}, "e2": {1, 2}}, [0.5, 0.6, 0.4]),
]


@case(params=range(len(SAMPLE_FRONTS)), compare="none")
def pareto_sampling(k):
    front, scores = SAMPLE_FRONTS[k]
    rng = random.Random(123)
    counts = [0] * len(scores)
    for _ in range(3000):
        counts[select_program_candidate_from_pareto_front(front, scores, rng)] += 1
    return {"counts": counts}


@case(compare="none")
def pareto_sampling_seeded():
    front, scores = SAMPLE_FRONTS[0]
    a = [select_program_candidate_from_pareto_front(front, scores, random.Random(s)) for s in range(40)]
    b = [select_program_candidate_from_pareto_front(front, scores, random.Random(s)) for s in range(40)]
    return {"a": a, "b": b}


# ---------------------------------------------------------------------------------------------------------------
# GEPAState bookkeeping
# ---------------------------------------------------------------------------------------------------------------


def _ve(scores, objs=None):
    return ValsetEvaluation(
        outputs_by_val_id={k: f"out{k}" for k in scores},
        scores_by_val_id=dict(scores),
        objective_scores_by_val_id=objs,
    )


def _state_dump(st):
    return {
        "cands": [[c["a"], c["b"]] for c in st.program_candidates],
        "parents": [[-1 if p is None else p for p in ps] for ps in st.parent_program_for_candidate],
        "front_scores": [st.pareto_front_valset[k] for k in sorted(st.pareto_front_valset)],
        "front_progs": [sorted(st.program_at_pareto_front_valset[k])
                        for k in sorted(st.program_at_pareto_front_valset)],
        "agg": list(st.program_full_scores_val_set),
        "avg_subset": [list(st.get_program_average_val_subset(i)) for i in range(len(st.program_candidates))],
        "next_pred": list(st.named_predictor_id_to_update_next_for_program_candidate),
        "predictors": list(st.list_of_named_predictors),
        "discovery": list(st.num_metric_calls_by_discovery)[1:],
        "obj_scores": [dict(sorted(o.items())) for o in st.prog_candidate_objective_scores],
        "obj_front": dict(sorted(st.objective_pareto_front.items())),
        "obj_front_progs": {k: sorted(v) for k, v in sorted(st.program_at_pareto_front_objectives.items())},
        "valset_evaluations": {str(k): sorted(v) for k, v in sorted(st.valset_evaluations.items())},
    }


def _build_state(frontier_type="instance", objectives=True):
    def objs(d):
        return {k: {"x": v, "y": 1.0 - v} for k, v in d.items()} if objectives else None

    s0 = {0: 0.5, 1: 0.0, 2: 1.0, 3: 0.25}
    st = GEPAState({"a": "p", "b": "q"}, _ve(s0, objs(s0)), track_best_outputs=True, frontier_type=frontier_type)
    st.num_full_ds_evals = 1
    st.total_num_evals = 4
    steps = [
        ([0], {"a": "p1", "b": "q"}, {0: 0.75, 1: 0.0, 2: 0.5, 3: 0.25}, 10),
        ([0], {"a": "p", "b": "q2"}, {0: 0.5, 1: 1.0, 2: 1.0, 3: 0.0}, 17),
        ([1, 2], {"a": "p1", "b": "q2"}, {0: 0.75, 1: 1.0, 2: 0.0, 3: 0.75}, 30),
        ([3], {"a": "p4", "b": "q2"}, {1: 1.0, 3: 1.0}, 41),
    ]
    st.named_predictor_id_to_update_next_for_program_candidate[0] = 1
    for parents, cand, scores, calls in steps:
        idx = st.update_state_with_new_program(parents, cand, _ve(scores, objs(scores)), None, calls)
        st.named_predictor_id_to_update_next_for_program_candidate[idx] = (idx % 2)
    return st


@case
def state_instance_front():
    st = _build_state("instance")
    out = _state_dump(st)
    mapping = st.get_pareto_front_mapping()
    out["mapping"] = {str(k): sorted(v) for k, v in sorted(mapping.items())}
    out["consistent"] = st.is_consistent()
    out["best_outputs"] = {str(k): sorted(p for p, _ in v) for k, v in sorted(st.best_outputs_valset.items())}
    return out


@case(params=["objective", "hybrid", "cartesian"])
def state_other_fronts(ft):
    st = _build_state(ft)
    mapping = st.get_pareto_front_mapping()
    return {
        "state": _state_dump(st),
        "front_sets": sorted(sorted(v) for v in mapping.values()),
        "n_keys": len(mapping),
    }


@case
def state_budget_hooks():
    st = _build_state("instance", objectives=False)
    seen = []
    st.add_budget_hook(lambda total, delta: seen.append([total, delta]))
    st.add_budget_hook(lambda total, delta: seen.append([-total, -delta]))
    st.increment_evals(3)
    st.increment_evals(0)
    st.increment_evals(5)
    return {"seen": seen, "total": st.total_num_evals}


@case
def state_save_load():
    st = _build_state("instance")
    st.increment_evals(2)
    st.add_budget_hook(lambda total, delta: None)
    with tempfile.TemporaryDirectory() as d:
        st.save(d)
        back = GEPAState.load(d)
    out = _state_dump(back)
    out["total"] = back.total_num_evals
    out["full_evals"] = back.num_full_ds_evals
    out["frontier_type"] = back.frontier_type
    back.increment_evals(1)
    out["total_after"] = back.total_num_evals
    return out


def _counting_evaluator(log):
    def fetch(ids):
        return list(ids)

    def evaluator(batch, cand):
        log.append(list(batch))
        return ([f"{cand['a']}@{i}" for i in batch], [float(len(cand["a"]) + i) for i in batch],
                [{"o": float(i)} for i in batch])

    return fetch, evaluator


@case
def evaluation_cache():
    log = []
    fetch, evaluator = _counting_evaluator(log)
    cache = EvaluationCache()
    c1 = {"a": "xy", "b": "z"}
    c2 = {"b": "z", "a": "xy"}  # same candidate, other key order
    r1 = cache.evaluate_with_cache_full(c1, [1, 2, 3], fetch, evaluator)
    r2 = cache.evaluate_with_cache_full(c2, [3, 4, 1], fetch, evaluator)
    hit = cache.get(c1, 4)
    miss = cache.get({"a": "xyz", "b": "z"}, 1)
    cached, uncached = cache.get_batch(c1, [0, 1, 5])
    return {
        "r1_scores": dict(sorted(r1[1].items())), "r1_n": r1[3],
        "r2_scores": dict(sorted(r2[1].items())), "r2_n": r2[3],
        "r2_out": dict(sorted(r2[0].items())),
        "r2_obj": {k: v for k, v in sorted((r2[2] or {}).items())},
        "log": log,
        "hit": [hit.output, hit.score], "miss": miss is None,
        "batch_cached": sorted(cached), "batch_uncached": uncached,
    }


@case
def state_cached_evaluate():
    log = []
    fetch, evaluator = _counting_evaluator(log)
    st = _build_state("instance", objectives=False)
    st.evaluation_cache = EvaluationCache()
    s1, n1 = st.cached_evaluate({"a": "k", "b": "z"}, [2, 0], fetch, evaluator)
    s2, n2 = st.cached_evaluate({"a": "k", "b": "z"}, [0, 1, 2], fetch, evaluator)
    st.evaluation_cache = None
    s3, n3 = st.cached_evaluate({"a": "k", "b": "z"}, [0, 1], fetch, evaluator)
    return {"s1": s1, "n1": n1, "s2": s2, "n2": n2, "s3": s3, "n3": n3, "log": log}


# ---------------------------------------------------------------------------------------------------------------
# Merge pieces, called directly
# ---------------------------------------------------------------------------------------------------------------

MERGE_POOL = [
    {"a": "A0", "b": "B0", "c": "C0"},  # 0 seed
    {"a": "A1", "b": "B0", "c": "C0"},  # 1 <- 0 (changed a)
    {"a": "A0", "b": "B2", "c": "C0"},  # 2 <- 0 (changed b)
    {"a": "A1", "b": "B0", "c": "C3"},  # 3 <- 1 (changed c)
    {"a": "A0", "b": "B2", "c": "C4"},  # 4 <- 2 (changed c)
]
MERGE_PARENTS = [[None], [0], [0], [1], [2]]


@case
def merge_desirable_predictors():
    p = MERGE_POOL
    return {
        "t_0_1_2": does_triplet_have_desirable_predictors(p, 0, 1, 2),
        "t_0_3_4": does_triplet_have_desirable_predictors(p, 0, 3, 4),
        "t_1_3_1": does_triplet_have_desirable_predictors(p, 1, 3, 1),
        "t_0_1_1": does_triplet_have_desirable_predictors(p, 0, 1, 1),
        "t_0_3_3x": does_triplet_have_desirable_predictors(
            [{"a": "x"}, {"a": "y"}, {"a": "z"}], 0, 1, 2),
        "filter": filter_ancestors(3, 4, [0], ([], []), [0.1, 0.2, 0.3, 0.4, 0.5], p),
        "filter_done": filter_ancestors(3, 4, [0], ([(3, 4, 0)], []), [0.1, 0.2, 0.3, 0.4, 0.5], p),
        "filter_better_anc": filter_ancestors(3, 4, [0], ([], []), [0.45, 0.2, 0.3, 0.4, 0.5], p),
        "filter_equal_anc": filter_ancestors(3, 4, [0], ([], []), [0.4, 0.2, 0.3, 0.4, 0.5], p),
    }


@case(params=[0, 1, 2])
def merge_combination(seed):
    # Only 3 and 4 are merge candidates; their common ancestor is 0 (1 and 2 are not shared).
    agg = [0.1, 0.2, 0.3, 0.6, 0.5]
    performed = ([], [])
    first = sample_and_attempt_merge_programs_by_common_predictors(
        agg, random.Random(seed), [3, 4], performed, MERGE_POOL, MERGE_PARENTS)
    return {
        "merged": first[0], "ids": sorted(first[1:3]), "ancestor": first[3],
        "too_few": sample_and_attempt_merge_programs_by_common_predictors(
            agg, random.Random(seed), [3], ([], []), MERGE_POOL, MERGE_PARENTS) is None,
        "anc_of_other": sample_and_attempt_merge_programs_by_common_predictors(
            agg, random.Random(seed), [1, 3], ([], []), MERGE_POOL, MERGE_PARENTS) is None,
    }


@case(params=[0, 1, 2, 3])
def merge_tie_break(seed):
    # Both descendants changed c: the better-scoring one gives c.
    agg = [0.1, 0.2, 0.3, 0.5, 0.6] if seed % 2 else [0.1, 0.2, 0.3, 0.6, 0.5]
    res = sample_and_attempt_merge_programs_by_common_predictors(
        agg, random.Random(seed), [3, 4], ([], []), MERGE_POOL, MERGE_PARENTS)
    return {"merged": res[0]}


# (scores of i, scores of j): i better on v0, j better on v1, ties elsewhere; and two score maps that share v5-v9
SUBSAMPLE_SCORES = [
    ({f"v{k}": 1.0 if k == 0 else 0.5 for k in range(7)}, {f"v{k}": 1.0 if k == 1 else 0.5 for k in range(7)}),
    ({f"v{k}": 1.0 if k == 0 else 0.0 for k in range(20)}, {f"v{k}": 1.0 if k == 1 else 0.0 for k in range(20)}),
    ({f"v{k}": 0.5 for k in range(10)}, {f"v{k}": 1.0 if k % 2 else 0.0 for k in range(5, 15)}),
]


@case(compare="none")
def merge_subsample():
    # the merged candidate's subsample: which ids, in which order, is the generator's business; judged by meaning
    picks = []
    for s1, s2 in SUBSAMPLE_SCORES:
        for seed in range(10):
            mp = MergeProposer(logger=_Quiet(), valset=None, evaluator=None, use_merge=True,
                               max_merge_invocations=5, rng=random.Random(seed))
            picks.append(" ".join(str(x) for x in mp.select_eval_subsample_for_merged_program(s1, s2)))
    return {"picks": picks}


# ---------------------------------------------------------------------------------------------------------------
# Whole runs through gepa.optimize
# ---------------------------------------------------------------------------------------------------------------

# Deterministic runs: a training set of one minibatch and a validation set without conflicts, so that the
# current_best selector makes progress.
SMALL_TRAIN = [("a", "red", "blue"), ("b", "cat", "dog"), ("b", "tea", "gin")]
DVAL = [("a", "red", "blue"), ("b", "cat", "dog"), ("b", "tea", "gin"), ("a", "sun", "moon"), ("b", "cat", "gin")]


@case(params=[20, 33, 60, 90], outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}})
def run_current_best(budget):
    res, adapter, lm = run(budget, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3)
    return result_dict(res, adapter, lm)


@case(outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}})
def run_current_best_all_components():
    res, adapter, lm = run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3, module_selector="all")
    return result_dict(res, adapter, lm)


@case(outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}})
def run_improvement_or_equal():
    res, adapter, lm = run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3, acceptance_criterion="improvement_or_equal")
    return result_dict(res, adapter, lm)


@case(outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}})
def run_no_valset():
    res, adapter, lm = run(40, train=SMALL_TRAIN, use_val=False, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3)
    return result_dict(res, adapter, lm)


@case(outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}})
def run_perfect_minibatch():
    # The seed already solves the whole (single-minibatch) training set: nothing is proposed, budget still spent.
    res, adapter, lm = run(25, train=[("a", "sun", "moon"), ("b", "gin", "tea"), ("a", "sun", "red")],
                           candidate_selection_strategy="current_best", reflection_minibatch_size=3)
    return result_dict(res, adapter, lm)


@case(outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}})
def run_perfect_minibatch_not_skipped():
    res, adapter, lm = run(25, train=[("a", "sun", "moon"), ("b", "gin", "tea"), ("a", "sun", "red")],
                           candidate_selection_strategy="current_best", reflection_minibatch_size=3,
                           skip_perfect_score=False)
    return result_dict(res, adapter, lm)


@case(outputs={"events*": {"compare": "none"}})
def run_cached():
    # Which evaluations a cache may serve is an implementation choice: only the course of the search is compared.
    res, _, _ = run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                    reflection_minibatch_size=3, cache_evaluation=True)
    out = result_dict(res)
    return {k: out[k] for k in ("candidates", "parents", "val_subscores", "front", "best_idx")}


@case(compare="none")
def run_cached_accounting():
    cached, adapter, _ = run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                             reflection_minibatch_size=3, cache_evaluation=True)
    plain, plain_adapter, _ = run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                                  reflection_minibatch_size=3)
    return {
        "total": cached.total_metric_calls,
        "adapter_examples": sum(len(c["ids"]) for c in adapter.calls),
        "plain_total": plain.total_metric_calls,
        "plain_adapter_examples": sum(len(c["ids"]) for c in plain_adapter.calls),
    }


@case(outputs={"*discovery*": {"compare": "none"}, "saved_events": {"compare": "none"}})
def run_resume():
    with tempfile.TemporaryDirectory() as d:
        first, _, _ = run(30, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3, run_dir=d)
        second, a2, _ = run(70, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3, run_dir=d)
    saved = sum(1 for e in a2.events if e["ev"] == "saved" and e["has_dir"])
    return {"first": result_dict(first), "second": result_dict(second), "saved_events": saved}


@case(outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}, "front*": {"compare": "none"}})
def run_objective_frontier():
    res, adapter, lm = run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3, frontier_type="objective", objectives=True)
    out = result_dict(res, adapter, lm)
    out["front"] = as_text(out["front"])  # not compared: its shape is free too
    out["obj_front"] = dict(sorted((res.objective_pareto_front or {}).items()))
    return out


@case(params=[0, 1, 2, 3], compare="none")
def run_pareto(seed):
    res, adapter, lm = run(150, seed=seed)
    # the course of the run (pool size, calls) depends on the generator's use: one JSON output, judged by meaning
    return {"run": as_text(result_dict(res, adapter, lm, events_as_text=False))}


@case(params=[0, 1], compare="none")
def run_pareto_repeatable(seed):
    r1, _, _ = run(80, seed=seed)
    r2, _, _ = run(80, seed=seed)
    return {"r1": as_text(result_dict(r1)), "r2": as_text(result_dict(r2))}


@case(params=[0, 1, 2], compare="none")
def run_merge(seed):
    res, adapter, lm = run(260, seed=seed, use_merge=True, max_merge_invocations=3)
    return {"run": as_text(result_dict(res, adapter, lm, events_as_text=False))}


@case
def optimize_needs_stop_condition():
    return {"res": run(None, train=SMALL_TRAIN)}


class CountingPolicy(FullEvaluationPolicy):
    def __init__(self):
        self.batches = 0

    def get_eval_batch(self, loader, state, target_program_idx=None):
        self.batches += 1
        return super().get_eval_batch(loader, state, target_program_idx)


@case
def optimize_eval_policy_options():
    base = result_dict(run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3)[0])
    named = result_dict(run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                            reflection_minibatch_size=3, val_evaluation_policy="full_eval")[0])
    policy = CountingPolicy()
    custom = result_dict(run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                             reflection_minibatch_size=3, val_evaluation_policy=policy)[0])
    try:
        run(60, train=SMALL_TRAIN, val_evaluation_policy="every_other")
        bad = False
    except Exception:
        bad = True
    return {"named_same": named == base, "custom_same": custom == base, "custom_used": policy.batches > 0,
            "unknown_rejected": bad}


@case(outputs={"*discovery*": {"compare": "none"}})
def optimize_default_logger_in_run_dir():
    with tempfile.TemporaryDirectory() as d:
        res, _, _ = run(40, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                        reflection_minibatch_size=3, run_dir=d, logger=None)
    return result_dict(res)


class ForeignAndDuplicates:
    """A selection strategy breaking the contract: returns a foreign proposal (not from the list, with another
    candidate) and each accepted proposal twice."""

    def select(self, proposals, state, acceptance_criterion):
        keep = [p for p in proposals if acceptance_criterion.should_accept(p, state)]
        foreign = [copy.copy(p) for p in proposals]
        for f in foreign:
            f.candidate = {"a": "foreign", "b": "foreign"}
        return foreign + keep + keep


@case(outputs={"*discovery*": {"compare": "none"}})
def selection_strategy_contract():
    res, _, _ = run(60, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                    reflection_minibatch_size=3, selection_strategy=ForeignAndDuplicates())
    return result_dict(res)


@case
def state_unscored_candidate():
    st = _build_state("instance", objectives=False)
    idx = st.update_state_with_new_program([0], {"a": "z", "b": "z"}, _ve({}), None, 50)
    count = st.get_program_average_val_subset(idx)[1]
    return {"count": count, "front_progs": [sorted(st.program_at_pareto_front_valset[k])
                                            for k in sorted(st.program_at_pareto_front_valset)]}


class _StopAfter:
    """A callback asking the engine to stop once `n` iterations have ended."""

    def __init__(self, n):
        self.n = n
        self.ended = 0
        self.engine = None

    def on_iteration_end(self, e):
        self.ended += 1
        if self.ended == self.n:
            self.engine.request_stop()


@case
def engine_request_stop():
    adapter = FakeAdapter()
    train = make_data(SMALL_TRAIN, "t")
    stopper = _StopAfter(2)
    proposer = ReflectiveMutationProposer(
        logger=_Quiet(), trainset=train, adapter=adapter, candidate_selector=CurrentBestCandidateSelector(),
        module_selector=RoundRobinReflectionComponentSelector(),
        batch_sampler=EpochShuffledBatchSampler(3, rng=random.Random(0)), perfect_score=1.0,
        skip_perfect_score=True, experiment_tracker=create_experiment_tracker(), reflection_lm=FakeLM(),
        reflection_prompt_template=TEMPLATE, callbacks=[stopper])
    engine = GEPAEngine(
        adapter=adapter, run_dir=None, valset=make_data(DVAL, "v"), seed_candidate=dict(SEED), perfect_score=1.0,
        seed=0, reflective_proposer=proposer, merge_proposer=None, frontier_type="instance", logger=_Quiet(),
        experiment_tracker=create_experiment_tracker(), callbacks=[stopper],
        stop_callback=MaxMetricCallsStopper(1000))
    stopper.engine = engine
    state = engine.run()
    return {"iterations_ended": stopper.ended, "total": state.total_num_evals,
            "candidates": [[c["a"], c["b"]] for c in state.program_candidates]}


WIDE_TRAIN = [("a", "red", "blue"), ("b", "cat", "dog"), ("b", "tea", "gin"),
              ("a", "sun", "moon"), ("b", "cat", "gin"), ("a", "red", "moon")]


@case(outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}})
def run_same_parent_sampling():
    # two (parent, minibatch) tasks per iteration from one parent; every improving child is kept
    res, adapter, lm = run(90, train=SMALL_TRAIN, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3, sampling_strategy=SameParentSampling(2))
    return result_dict(res, adapter, lm)


@case(outputs={"*discovery*": {"compare": "none"}, "events*": {"compare": "none"}})
def run_two_tasks_best_improvement():
    res, adapter, lm = run(90, train=WIDE_TRAIN, val=DVAL, candidate_selection_strategy="current_best",
                           reflection_minibatch_size=3, sampling_strategy=SameParentSampling(2),
                           selection_strategy=BestImprovement())
    return result_dict(res, adapter, lm)
