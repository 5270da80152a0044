"""Checks for gepa-engine/1 (run by the harness, never in the sandbox).

The runs driven by the seeded Pareto sampling (run_pareto*, run_merge*) depend on how a solution consumes the
random generator, which nothing decides; they are judged here by what Algorithms 1 and 2 and the merge rules of
paper.md decide, recomputing every score from the fake system's definition (the same rows as the probe)."""

from __future__ import annotations

import json
import math

from lmrbench.checks import check, close, equal, expect

VAL = [
    ("a", "red", "blue"),
    ("a", "blue", "red"),
    ("b", "cat", "dog"),
    ("b", "dog", "cat"),
    ("a", "sun", "moon"),
    ("b", "tea", "gin"),
    ("a", "moon", "sun"),
]
SEED = ["sun", "gin"]
COMP = {"a": 0, "b": 1}


def tree(out, key):
    """Rebuild a nested output from the harness's flattened keys (`name`, `name.0`, `name.key`)."""
    v = out[key]
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "seq":
        return [tree(out, f"{key}.{i}") for i in range(v[1])]
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "map":
        return {k: tree(out, f"{key}.{k}") for k in v[1].split(",") if k}
    return v


def load(flat, keys=None):
    """A case's outputs as plain data. The runs emit their run-dependent parts as JSON text (`run` for a whole
    seeded run, `events` for a callback stream, `front` under the objective frontier; see `as_text` in the
    probe), since every output must have the reference's shape and these need not."""
    if "run" in flat:
        out = from_text(flat, "run")
    else:
        out = {k: tree(flat, k) for k in (keys if keys is not None else [k for k in flat if "." not in k])}
    for k in ("events", "front"):
        v = out.get(k)
        if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
            out[k] = json.loads("".join(v))
    return out


def from_text(flat, key):
    """An output the probe emitted with `as_text`: JSON cut into strings."""
    return json.loads("".join(tree(flat, key)))


def score(cand, row):
    ws = set(cand[COMP[row[0]]].split())
    return 0.5 * (row[1] in ws) + 0.5 * (row[2] not in ws)


def _ancestors(parents, k):
    seen, todo = set(), [p for p in parents[k] if p >= 0]
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(q for q in parents[p] if q >= 0)
    return seen


def _merge_ok(cands, parents, agg, k):
    """Some common ancestor of the two parents explains every component of child k by the merge rules."""
    i, j = parents[k]
    common = _ancestors(parents, i) & _ancestors(parents, j)
    for a in common:
        ok = True
        for c in range(2):
            pa, pi, pj, new = cands[a][c], cands[i][c], cands[j][c], cands[k][c]
            if pi == pj:
                ok &= new == pi
            elif pa == pi:
                ok &= new == pj
            elif pa == pj:
                ok &= new == pi
            elif agg[i] > agg[j]:
                ok &= new == pi
            elif agg[j] > agg[i]:
                ok &= new == pj
            else:
                ok &= new in (pi, pj)
        if ok:
            return True
    return False


def _judge_run(flat, budget, max_merges=0):
    out = load(flat)
    cands, parents, subs = out["candidates"], out["parents"], out["val_subscores"]
    n = len(cands)
    equal(cands[0], SEED)
    equal(parents[0], [-1])
    val_ids = [f"v{j}" for j in range(len(VAL))]
    # Scores are the system's true scores on every Pareto example; aggregate = mean; front = per-example argmax set.
    for k in range(n):
        equal(out["val_keys"][k], list(range(len(VAL))))
        equal(subs[k], [score(cands[k], row) for row in VAL])
        close(out["agg"][k], sum(subs[k]) / len(VAL), rtol=1e-12, atol=1e-12)
    for j in range(len(VAL)):
        best = max(subs[k][j] for k in range(n))
        equal(out["front"][j], [k for k in range(n) if subs[k][j] == best])
    close(out["agg"][out["best_idx"]], max(out["agg"]), rtol=0, atol=1e-12)
    # Every metric call is counted once; the budget is checked before each iteration.
    calls = out["eval_calls"]
    total = sum(len(c["ids"]) for c in calls)
    equal(out["total_metric_calls"], total)
    expect(budget <= total < budget + 3 + 3 + len(VAL), f"{total} metric calls for a budget of {budget}")
    # Full Pareto evaluations, in order, are the pool's candidates.
    full = [i for i, c in enumerate(calls) if c["ids"] == val_ids]
    equal(len(full), n)
    cum = 0
    before = []
    for c in calls:
        before.append(cum)
        cum += len(c["ids"])
    for k, i in enumerate(full):
        equal(calls[i]["cand"], cands[k])
        expect(out["discovery"][k] in (before[i], before[i] + len(VAL)),
               f"discovery count of candidate {k}: {out['discovery'][k]}, calls before its evaluation {before[i]}")
    # Reflective steps: a traced parent evaluation on a minibatch, then (when a child was proposed) the child's
    # traced evaluation on the same minibatch.
    steps = []
    i = 0
    while i < len(calls):
        c = calls[i]
        if not c["ids"][0].startswith("t"):
            i += 1
            continue
        nxt = calls[i + 1] if i + 1 < len(calls) else None
        if nxt is not None and nxt["ids"] == c["ids"] and nxt["cand"] != c["cand"]:
            steps.append((i, i + 1))
            i += 2
        else:
            steps.append((i, None))
            i += 1
    improvements = 0
    for pi, ci in steps:
        a = calls[pi]
        # the parent is a pool member that is best on some example (Algorithm 2).  Which front members count as
        # dominated is not checked here: the paper's pairwise reading and the package's covering rule differ.
        pool = sum(1 for f in full if f < pi)
        wins = [{j for j in range(len(VAL)) if subs[k][j] == max(subs[q][j] for q in range(pool))}
                for k in range(pool)]
        owners = [k for k in range(pool) if cands[k] == a["cand"]]
        expect(bool(owners), f"the evaluated parent {a['cand']} is not a pool member")
        expect(any(wins[k] for k in owners), f"parent {a['cand']} is not best on any Pareto example")
        if ci is None:
            continue
        b = calls[ci]
        rows = [VAL_TRAIN[int(x[1:])] for x in a["ids"]]
        sa = sum(score(a["cand"], r) for r in rows)
        sb = sum(score(b["cand"], r) for r in rows)
        kept = ci + 1 < len(calls) and calls[ci + 1]["cand"] == b["cand"] and calls[ci + 1]["ids"] == val_ids
        expect(kept == (sb > sa), f"child {b['cand']}: minibatch {sa} -> {sb}, kept {kept}")
        improvements += sb > sa
    single = [k for k in range(1, n) if len(parents[k]) == 1]
    equal(improvements, len(single))
    for k in single:
        p = parents[k][0]
        expect(0 <= p < k, f"parent {p} of {k}")
        changed = sum(cands[k][c] != cands[p][c] for c in range(2))
        expect(changed == 1, f"child {k} changes {changed} components of its parent {p}")
    merged = [k for k in range(1, n) if len(parents[k]) == 2]
    # (no upper bound on the number of merges is checked: the release's cap counts scheduled merges loosely and
    # can accept one more than max_merge_invocations; a strict cap is as valid a reading)
    if not max_merges:
        equal(len(merged), 0)
    for k in merged:
        i, j = parents[k]
        expect(i not in _ancestors(parents, j) and j not in _ancestors(parents, i), "merging a line with itself")
        expect(_merge_ok(cands, parents, out["agg"], k), f"merged candidate {k} breaks the merge rules")
    return merged


# the probe's TRAIN rows (the Pareto runs' minibatches come from it)
VAL_TRAIN = [
    ("a", "red", "blue"),
    ("a", "blue", "red"),
    ("b", "cat", "dog"),
    ("a", "sun", "moon"),
    ("b", "dog", "cat"),
    ("b", "tea", "gin"),
]


@check("run_pareto[*]")
def pareto_runs(out, ref):
    _judge_run(out, 150)
    expect(len(load(out)["candidates"]) >= 4, "the search made no progress")


@check("run_merge[*]")
def merge_runs(out, ref):
    merged = _judge_run(out, 260, max_merges=3)
    expect(len(merged) >= 1, "no merge was accepted (the release accepts merges on every one of these seeds)")


@check("run_pareto_repeatable[*]")
def repeatable(out, ref):
    expect(from_text(out, "r1") == from_text(out, "r2"), "the same seed gave two different runs")


@check("pareto_sampling[0]")
def sampling_weights(flat, ref):
    out = {"counts": tree(flat, "counts")}
    # wins: 0 -> {e0}, 1 -> {e1, e2, e3}, 2 -> {e3, e4, e5, e6}; nobody dominated; weights 1 : 3 : 4
    counts = out["counts"]
    equal(sum(counts), 3000)
    for c, p in zip(counts, [1 / 8, 3 / 8, 4 / 8], strict=True):
        sd = math.sqrt(3000 * p * (1 - p))
        expect(abs(c - 3000 * p) <= 5 * sd, f"count {c}, expected about {3000 * p:.0f}")


@check("pareto_sampling[1]")
def sampling_dominated(flat, ref):
    out = {"counts": tree(flat, "counts")}
    # 2 wins only on e2, where 1 also wins (1 also wins e1): 2 is dominated and never sampled; 0 : 1 = 1 : 2
    counts = out["counts"]
    equal(counts[2], 0)
    for c, p in zip(counts[:2], [1 / 3, 2 / 3], strict=True):
        sd = math.sqrt(3000 * p * (1 - p))
        expect(abs(c - 3000 * p) <= 5 * sd, f"count {c}, expected about {3000 * p:.0f}")


@check("pareto_sampling_seeded")
def sampling_seeded(flat, ref):
    out = {"a": tree(flat, "a"), "b": tree(flat, "b")}
    equal(out["a"], out["b"])
    expect(set(out["a"]) == {0, 1, 2}, f"40 draws gave {sorted(set(out['a']))}")


@check("state_instance_front")
def hand_front(flat, ref):
    out = {k: tree(flat, k) for k in ("front_scores", "front_progs", "agg")}
    # seed {0:.5, 1:0, 2:1, 3:.25}; c1 {0:.75, 1:0, 2:.5, 3:.25}; c2 {0:.5, 1:1, 2:1, 3:0};
    # c3 {0:.75, 1:1, 2:0, 3:.75}; c4 {1:1, 3:1} (partial).  Per example: 0 -> .75 by {1,3}; 1 -> 1 by {2,3,4};
    # 2 -> 1 by {0,2}; 3 -> 1 by {4}.
    equal(out["front_scores"], [0.75, 1.0, 1.0, 1.0])
    equal(out["front_progs"], [[1, 3], [2, 3, 4], [0, 2], [4]])
    # means over the examples each candidate was scored on: c4 = (1 + 1) / 2
    close(out["agg"], [0.4375, 0.375, 0.625, 0.625, 1.0], rtol=1e-12)


@check("run_current_best[2]")  # budget 60
def hand_budget(flat, ref):
    out = {k: tree(flat, k) for k in ("total_metric_calls", "candidates")}
    # seed on 5 Pareto examples (5); each iteration spends 3 + 3 on the minibatch, +5 when the child is kept.
    # Four children kept and two rejected iterations: 5 + 4 * 11 + 2 * 6 = 61 >= 60, the loop stops.
    equal(out["total_metric_calls"], 61)
    equal(len(out["candidates"]), 5)


@check("run_cached_accounting")
def cached_accounting(flat, ref):
    # every example the adapter evaluates is one metric call; the cache can only save calls
    equal(flat["total"], flat["adapter_examples"])
    equal(flat["plain_total"], flat["plain_adapter_examples"])
    expect(flat["adapter_examples"] <= flat["plain_adapter_examples"], "the cache made more metric calls")


@check("run_current_best*")
@check("run_improvement_or_equal")
@check("run_perfect_minibatch*")
@check("run_objective_frontier")
def discovery_counts(flat, ref):
    # "metric calls spent when the candidate was discovered": before or after its own Pareto evaluation
    calls = tree(flat, "eval_calls")
    cands = tree(flat, "candidates")
    disc = tree(flat, "discovery")
    equal(len(disc), len(cands))
    val_ids = calls[0]["ids"]
    cum, k = 0, 0
    for c in calls:
        if c["ids"] == val_ids:
            expect(k < len(cands) and c["cand"] == cands[k], "Pareto evaluations out of order")
            expect(disc[k] in (cum, cum + len(val_ids)), f"discovery count {disc[k]}, {cum} calls before")
            k += 1
        cum += len(c["ids"])
    equal(k, len(cands))


def _front_union(subs, upto):
    members = set()
    for j in range(len(subs[0])):
        best = max(subs[k][j] for k in range(upto + 1))
        members |= {k for k in range(upto + 1) if subs[k][j] == best}
    return sorted(members)


def _judge_events(out, instance_front=True):
    """The callback stream, judged by what each event's name and fields mean (gepa/core/callbacks.py)."""
    ev = out["events"]
    cands, parents, subs, agg = out["candidates"], out["parents"], out["val_subscores"], out["agg"]
    n, nval = len(cands), len(subs[0])
    # one start event, before the first iteration.  Whether it comes before or after the seed's Pareto evaluation
    # is not decided ("Called when optimization begins", callbacks.py; Algorithm 1 scores the seed before its
    # loop): only the seed's evaluation events may precede it.
    starts = [i for i, e in enumerate(ev) if e["ev"] == "start"]
    equal(len(starts), 1, "start events")
    for e in ev[:starts[0]]:
        expect(e["ev"] in ("valset", "eval_start", "eval_end", "budget") and e.get("idx", 0) == 0,
               f"{e['ev']} event before the start event")
    start = ev[starts[0]]
    equal(start["val"], nval)
    equal(ev[-1]["ev"], "end")
    equal(ev[-1]["best"], out["best_idx"])
    equal(ev[-1]["total"], out["total_metric_calls"])
    # iterations: start/end pairs with consecutive numbers; events inside carry their iteration's number
    blocks, cur = [], None
    for i, e in enumerate(ev):
        if e["ev"] == "it_start":
            expect(cur is None, "iteration started inside another")
            if blocks:
                equal(e["it"], ev[blocks[-1][0]]["it"] + 1, "iteration numbers")
            cur = i
        elif e["ev"] == "it_end":
            expect(cur is not None, "iteration ended without starting")
            equal(e["it"], ev[cur]["it"], "iteration number at its end")
            blocks.append((cur, i))
            cur = None
        elif cur is not None and e["ev"] != "saved":
            equal(e["it"], ev[cur]["it"], f"iteration number of {e['ev']}")
    expect(cur is None, "an iteration never ended")
    # accepted candidates and their Pareto evaluations
    # on_candidate_accepted for every reflective child; for a merged child too, or only its on_merge_accepted
    # (checked below): the protocol has a merge-specific event and does not say whether a merge also fires the
    # generic one ("Called when a new candidate is accepted", callbacks.py), so either reading, run-wide
    acc = [e for e in ev if e["ev"] == "accepted"]
    reflective = [k for k in range(1, n) if len(parents[k]) == 1]
    expect([e["idx"] for e in acc] in (list(range(1, n)), reflective),
           f"on_candidate_accepted for {[e['idx'] for e in acc]}, new candidates {list(range(1, n))}")
    for e in acc:
        equal(e["parents"], sorted(parents[e["idx"]]))
    val = [e for e in ev if e["ev"] == "valset"]
    equal([e["idx"] for e in val], list(range(n)))
    for e in val:
        k = e["idx"]
        equal(e["scores"], subs[k])
        close(e["avg"], agg[k], rtol=1e-12, atol=1e-12)
        equal(e["n"], nval)
        equal(e["size"], nval)
        equal(e["best"], k == 0 or agg[k] > max(agg[:k]), f"is_best_program of {k}")
    fronts = [e for e in ev if e["ev"] == "front"]
    if instance_front:
        expect(len(fronts) in (n - 1, n), f"{len(fronts)} front updates for {n - 1} new candidates")
        fronts = fronts[len(fronts) - (n - 1):]
        for k, e in enumerate(fronts, start=1):
            equal(e["front"], _front_union(subs, k))
            equal(e["displaced"], sorted(set(_front_union(subs, k - 1)) - set(_front_union(subs, k))))
    out["start"] = start
    _judge_blocks(ev, blocks, out)
    _judge_evals_and_budget(ev, out)


def _judge_blocks(ev, blocks, out):
    cands, parents = out["candidates"], out["parents"]
    for a, b in blocks:
        inside = ev[a + 1:b]
        names = [e["ev"] for e in inside]
        accepted_here = [e for e in inside if e["ev"] == "accepted"]
        merged_here = [e for e in inside if e["ev"] == "merge_accepted"]
        equal(ev[b]["accepted"], bool(accepted_here or merged_here), "proposal_accepted at iteration end")
        if "merge_attempted" in names:
            continue
        proposals = [e for e in inside if e["ev"] == "prop_end"]
        equal(names.count("rejected"), len(proposals) - len(accepted_here), "rejections")
        sel = [e["idx"] for e in inside if e["ev"] == "selected"]
        for e in accepted_here:
            equal([sel[0]] if sel else None, parents[e["idx"]], "selected parent")
            p = parents[e["idx"]][0]
            new = proposals[0]["new"]
            expect(all(c in ("a", "b") for c in new), "unknown component proposed")
            child = [new.get("a", cands[p][0]), new.get("b", cands[p][1])]
            equal(child, cands[e["idx"]], "child = parent with the proposed texts")
        for e in inside:
            if e["ev"] == "minibatch":
                expect(all(0 <= x < out["start"]["train"] for x in e["ids"]), "minibatch outside the training set")
            if e["ev"] == "skipped":
                equal([e["idx"]], sel[:1], "skipped candidate")


def _judge_evals_and_budget(ev, out):
    parents, n, nval = out["parents"], len(out["candidates"]), len(out["val_subscores"][0])
    starts = [e for e in ev if e["ev"] in ("eval_start", "eval_end")]
    for s, t in zip(starts[::2], starts[1::2], strict=False):
        equal((s["ev"], t["ev"]), ("eval_start", "eval_end"), "evaluation start/end pairing")
        equal(s["idx"], t["idx"])
        equal(s["traces"], t["traces"], "capture_traces vs has_trajectories")
        equal(s["n"], len(t["scores"]))
        equal(s["seed"], s["idx"] == 0, "is_seed_candidate")
        equal(t["seed"], t["idx"] == 0, "is_seed_candidate")
    # budget
    bud = [e for e in ev if e["ev"] == "budget"]
    if out["total_metric_calls"] > nval:
        expect(bool(bud), "no budget update")
    prev = None
    for e in bud:
        if prev is not None:
            equal(e["used"], prev + e["delta"], "running total of metric calls")
        expect(e["used"] - e["delta"] >= 0, "negative budget")
        equal(e["remaining"], max(0, out["budget"] - e["used"]), "remaining budget")
        prev = e["used"]
    if bud:
        equal(bud[-1]["used"], out["total_metric_calls"])
    # merges
    merged = [k for k in range(1, n) if len(parents[k]) == 2]
    macc = [e for e in ev if e["ev"] == "merge_accepted"]
    equal([e["idx"] for e in macc], merged)
    for e in macc:
        equal(e["parents"], sorted(parents[e["idx"]]))
    equal(len([e for e in ev if e["ev"] == "merge_attempted"]),
          len(macc) + len([e for e in ev if e["ev"] == "merge_rejected"]), "merge attempts")


def _events_check(flat, instance_front=True):
    out = load(flat)
    _judge_events(out, instance_front)


@check("run_current_best*")
@check("run_improvement_or_equal")
@check("run_no_valset")
@check("run_perfect_minibatch*")
@check("run_pareto[*")
@check("run_merge[*")
def events(flat, ref):
    _events_check(flat)


@check("run_objective_frontier")
def events_objective(flat, ref):
    _events_check(flat, instance_front=False)


@check("run_perfect_minibatch")
def perfect_skips(flat, ref):
    ev = load(flat, ["events"])["events"]
    its = [e for e in ev if e["ev"] == "it_start"]
    skipped = [e for e in ev if e["ev"] == "skipped"]
    expect(len(its) >= 2 and len(skipped) == len(its), "every iteration with a perfect minibatch is skipped")


@check("run_resume")
def resume_saves(flat, ref):
    expect(flat["saved_events"] >= 1, "no on_state_saved event in a run with a run_dir")


@check("state_unscored_candidate")
def unscored(flat, ref):
    equal(flat["count"], 0)


SUBSAMPLE_SCORES = [
    ({f"v{k}": 1.0 if k == 0 else 0.5 for k in range(7)}, {f"v{k}": 1.0 if k == 1 else 0.5 for k in range(7)}),
    ({f"v{k}": 1.0 if k == 0 else 0.0 for k in range(20)}, {f"v{k}": 1.0 if k == 1 else 0.0 for k in range(20)}),
    ({f"v{k}": 0.5 for k in range(10)}, {f"v{k}": 1.0 if k % 2 else 0.0 for k in range(5, 15)}),
]


@check("merge_subsample")
def merge_subsample(flat, ref):
    # paper.md (System-aware merge): the subsample holds examples where i is better, where j is better and where
    # they tie; `num_subsample_ids=5` (merge.py signature; `merge_val_overlap_floor` = 5 shared ids, api.py)
    # is its size when the two score maps share at least 5 ids.  Only shared ids can be scored for both.
    picks = tree(flat, "picks")
    equal(len(picks), 10 * len(SUBSAMPLE_SCORES))
    for n, (s1, s2) in enumerate(SUBSAMPLE_SCORES):
        common = set(s1) & set(s2)
        buckets = [{k for k in common if s1[k] > s2[k]}, {k for k in common if s2[k] > s1[k]},
                   {k for k in common if s1[k] == s2[k]}]
        for seed in range(10):
            ids = picks[10 * n + seed].split()
            expect(set(ids) <= common, f"subsample {ids} has ids outside the shared ones")
            expect(len(ids) == 5 and len(set(ids)) == 5, f"subsample {ids}: want 5 distinct shared ids")
            for b in buckets:
                expect(not b or set(ids) & b, f"subsample {ids} misses the examples {sorted(b)}")
