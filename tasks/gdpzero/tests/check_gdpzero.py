"""Trusted checks for gdpzero/1 (never enter the sandbox): the hand-checked PUCT choices and the search's
properties, on the outputs probe_gdpzero.py emitted. The default comparison with the reference's outputs has
already passed."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect


def seq(out: dict, key: str) -> list:
    """An emitted list, back from its flattened keys `key.0`, `key.1`, ..."""
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: not a list")
    return [out.get(f"{key}.{i}") for i in range(int(marker[1]))]


def children(out: dict, key: str) -> list[str]:
    """The keys of an emitted dict, in sorted order."""
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "map", f"{key}: not a dict")
    return [k for k in str(marker[1]).split(",") if k]


def acts(ref: dict) -> list[str]:
    """ACTS of gdpzero.simulator, as the reference run emitted them (A0..A4 of the old tests)."""
    return seq(ref, "acts")


# --------------------------------------------------------------------------- select_action by hand


@check("puct_hand_computed")
def puct_hand_computed(out, ref):
    a0, a1, a2, _, _ = acts(ref)
    # P = [.4, .3, .1, .1, .1], N = [3, 1, 0, 0, 0] -> N(s) = 4, sqrt = 2; Q = [.5, .9, -, -, -]; c = 1.
    # scores: a0 = .5 + .4*2/4 = .7; a1 = .9 + .3*2/2 = 1.2; a2..a4 = q0 + .1*2/1 = q0 + .2.
    equal(out["c1_q0"], a1, what="q0 = 0")          # 1.2 beats .7 and .2
    equal(out["c1_q1.1"], a2, what="q0 = 1.1")      # 1.3 for every untried act: the earliest wins
    # c = 3: a0 = .5 + 3*.4*2/4 = 1.1; a1 = .9 + 3*.3*2/2 = 1.8; untried = 0 + 3*.1*2 = .6 -> a1.
    equal(out["c3"], a1, what="c = 3")
    # c = 10: a0 = .5 + 2 = 2.5; a1 = .9 + 3 = 3.9; untried = 2 -> a1. Q matters: drop a1's Q to -2.
    equal(out["c10_low_q"], a0, what="c = 10, Q(a1) = -2")  # a0 2.5 vs a1 1.0 vs untried 2.0
    equal(out["c0_low_q"], a0, what="c = 0, Q(a1) = -2")    # c = 0: pure exploitation, Q = .5 > q0 = 0 > -2


@check("fresh_node_follows_the_prior")
def fresh_node(out, ref):
    a0, _, a2, _, _ = acts(ref)
    # N(s) = 0: sqrt(max(0, 1)) = 1, so score = q0 + c * P(a); the largest prior wins.
    equal(out["c1"], a2, what="c = 1")
    equal(out["c1_q0.7"], a2, what="c = 1, q0 = 0.7")
    # With c = 0 every act scores q0: an exact tie, the first act wins.
    equal(out["c0_q0.3"], a0, what="c = 0")


@check("exact_ties_go_to_the_earliest_act")
def exact_ties(out, ref):
    a0, a1, _, a3, _ = acts(ref)
    equal(out["uniform"], a0, what="uniform prior, fresh node")
    # a1 and a3 identical and best: a1 wins; swapping which one is best moves the choice.
    equal(out["a1_a3_tied"], a1, what="a1 and a3 tied")
    equal(out["a3_better"], a3, what="Q(a3) = 0.61")


@check("unvisited_acts_use_q0_not_their_stored_q")
def unvisited(out, ref):
    a0, _, a2, _, _ = acts(ref)
    # A stale q entry for an act with N = 0 must be ignored.
    # visited: .5 + .2*sqrt(20)/6 = .649; untried a2: q0 + .2*sqrt(20) = q0 + .894
    equal(out["c1"], a2, what="c = 1")
    equal(out["c0.1"], a0, what="c = 0.1")  # untried: 0 + .089 < .5 + .015


@check("select_does_not_change_the_node")
def select_is_pure(out, ref):
    for key in ref:
        if key.startswith("before."):
            name = key[len("before."):]
            equal(out.get(f"after.{name}"), out[key], what=f"node {name}")
    for key in out:
        if key.startswith("after."):
            expect(f"before.{key[len('after.'):]}" in out, f"node gained {key[len('after.'):]}")


# --------------------------------------------------------------------------- simulate: properties


@check("first_simulation_only_expands_the_root")
def first_simulation(out, ref):
    close(out["value"], ref["start_value"], rtol=1e-6, atol=1e-12, what="first value = value of the root state")
    equal(out["expanded"], True, what="root expanded")
    prior = children(out, "prior")
    equal(prior, children(ref, "start_prior"), what="prior acts")
    for a in prior:
        close(out[f"prior.{a}"], ref[f"start_prior.{a}"], rtol=1e-6, atol=1e-12, what=f"prior {a}")
    equal([out[f"first.{k}"] for k in ("visits", "children", "realizations", "calls")], [0, 0, 0, 0],
          what="after one simulation: visits, children, root realizations, simulator calls")
    equal([out[f"second.{k}"] for k in ("visits", "children", "calls")], [1, 1, 1],
          what="after two simulations: visits, children, simulator calls")


@check("visit_counts_and_realizations_are_consistent")
def consistent(out, ref):
    k = ref["max_realizations"]
    equal(out["root_visits"], ref["n_simulations"] - 1, what="root visits")
    visits = np.asarray(seq(out, "edge_visits"))
    equal(seq(out, "edge_realizations"), np.minimum(k, visits).tolist(), what="realizations per child")
    expect(bool(np.all(visits >= np.asarray(seq(out, "edge_child_visits")))), "an edge has fewer visits than below it")
    q = np.asarray(seq(out, "edge_q"), dtype=np.float64)
    expect(bool(np.all((q >= 0.0) & (q <= 1.0))), "a Q value outside [0, 1]")


@check("open_loop_realizations_use_sample_indices_in_order")
def sample_indices(out, ref):
    equal(out["calls"], out["realized_edges"], what="simulator calls vs sum of min(k, N(s, a)) over edges")
    for edge in children(out, "samples"):
        samples = seq(out, f"samples.{edge}")
        equal(samples, list(range(len(samples))), what=f"sample indices of edge {edge}")


@check("backup_is_a_running_mean_without_discount")
def running_mean(out, ref):
    equal(seq(out, "values"), [0.37] * ref["n_simulations"], what="values")
    for key, value in out.items():
        if key.startswith("tree.") and ".q." in key and "#" not in key:
            close(value, 0.37, rtol=0, atol=1e-12, what=key)


@check("root_q_is_the_mean_of_the_values_through_each_act")
def root_q(out, ref):
    equal(out["root_visits"], 14, what="root visits after 15 simulations")
    seen = []
    for act in children(out, "tree"):
        equal(out[f"tree.{act}.expanded"], False, what=f"child {act} expanded at max_depth = 1")
        leafs = seq(out, f"tree.{act}.leafs")
        seen += leafs
        close(out[f"tree.{act}.q"], sum(leafs) / len(leafs), rtol=0, atol=1e-12, what=f"Q(root, {act})")
    close(sorted(seen), sorted(seq(out, "values")[1:]), rtol=0, atol=1e-12, what="leaf values vs returned values")


@check("terminal_root_is_evaluated_not_expanded")
def terminal_root(out, ref):
    equal(out["value"], 1.0, what="value of a donated dialogue")
    equal(out["expanded"], False, what="root expanded")
    equal(out["children"], 0, what="root children")


@check("terminal_states_stop_the_descent")
def terminal_states(out, ref):
    equal(out["root_visits"], 19, what="root visits after 20 simulations")
    expect(not any(seq(out, "children_expanded")), "a terminal child was expanded")
    expect(not any(seq(out, "grandchildren")), "a terminal child has children")


@check("single_realization_reuses_the_first_response")
def single_realization(out, ref):
    expect(all(s == 0 for s in seq(out, "samples")), "a sample index other than 0 with max_realizations = 1")
    expect(all(n <= 1 for n in seq(out, "realizations")), "a node with more than one realization")
