"""Hidden tests for gdpzero/1: OpenLoopMCTS.select_action and OpenLoopMCTS.simulate in gdpzero/mcts.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gdpzero.mcts import Node, OpenLoopMCTS
from gdpzero.simulator import ACTS, DialogueState, PersuasionSimulator

CASES = json.loads((Path(__file__).parent / "fixtures" / "gdpzero_cases.json").read_text(encoding="utf-8"))
A0, A1, A2, A3, A4 = ACTS


def node(prior, visits, q) -> Node:
    return Node(prior=dict(zip(ACTS, prior)), visits=dict(zip(ACTS, visits)), q=dict(zip(ACTS, q)))


def planner(c: float = 1.0, q0: float = 0.0, sim: PersuasionSimulator | None = None, **kw) -> OpenLoopMCTS:
    return OpenLoopMCTS(sim or PersuasionSimulator(), c_puct=c, q0=q0, **kw)


def state_json(s: DialogueState) -> dict:
    return {"turns": [list(t) for t in s.turns], "inclination": s.inclination, "outcome": s.outcome}


def walk(n: Node, path: str = ""):
    yield path, n
    for act, child in n.children.items():
        yield from walk(child, f"{path}/{act}")


def run_config(cfg: dict, sim: PersuasionSimulator | None = None) -> tuple[Node, list[float], OpenLoopMCTS]:
    sim = sim or PersuasionSimulator(max_turns=cfg["max_turns"], seed=cfg["seed"])
    mcts = OpenLoopMCTS(sim, c_puct=cfg["c_puct"], q0=cfg["q0"], max_realizations=cfg["max_realizations"],
                        max_depth=cfg["max_depth"])
    root = Node()
    start = DialogueState(inclination=cfg["inclination"])
    values = [mcts.simulate(root, start) for _ in range(cfg["n_simulations"])]
    return root, values, mcts


# --------------------------------------------------------------------------- select_action by hand


def test_puct_hand_computed() -> None:
    # P = [.4, .3, .1, .1, .1], N = [3, 1, 0, 0, 0] -> N(s) = 4, sqrt = 2; Q = [.5, .9, -, -, -]; c = 1.
    # scores: a0 = .5 + .4*2/4 = .7; a1 = .9 + .3*2/2 = 1.2; a2..a4 = q0 + .1*2/1 = q0 + .2.
    n = node([0.4, 0.3, 0.1, 0.1, 0.1], [3, 1, 0, 0, 0], [0.5, 0.9, 0.0, 0.0, 0.0])
    assert planner(1.0, q0=0.0).select_action(n) == A1      # 1.2 beats .7 and .2
    assert planner(1.0, q0=1.1).select_action(n) == A2      # 1.3 for every untried act: the earliest wins
    # c = 3: a0 = .5 + 3*.4*2/4 = 1.1; a1 = .9 + 3*.3*2/2 = 1.8; untried = 0 + 3*.1*2 = .6 -> a1.
    assert planner(3.0).select_action(n) == A1
    # c = 10: a0 = .5 + 2 = 2.5; a1 = .9 + 3 = 3.9; untried = 2 -> a1. Q matters: drop a1's Q to -2.
    n.q[A1] = -2.0
    assert planner(10.0).select_action(n) == A0             # a0 2.5 vs a1 1.0 vs untried 2.0
    assert planner(0.0).select_action(n) == A0              # c = 0: pure exploitation, Q = .5 > q0 = 0 > -2


def test_fresh_node_follows_the_prior() -> None:
    # N(s) = 0: sqrt(max(0, 1)) = 1, so score = q0 + c * P(a); the largest prior wins.
    n = node([0.1, 0.2, 0.4, 0.2, 0.1], [0] * 5, [0.0] * 5)
    assert planner(1.0).select_action(n) == A2
    assert planner(1.0, q0=0.7).select_action(n) == A2
    # With c = 0 every act scores q0: an exact tie, the first act wins.
    assert planner(0.0, q0=0.3).select_action(n) == A0


def test_exact_ties_go_to_the_earliest_act() -> None:
    n = node([0.2] * 5, [0] * 5, [0.0] * 5)
    assert planner(1.0).select_action(n) == A0
    # a1 and a3 identical and best: a1 wins; swapping which one is best moves the choice.
    n = node([0.1, 0.3, 0.1, 0.3, 0.2], [2, 4, 2, 4, 1], [0.2, 0.6, 0.2, 0.6, 0.1])
    assert planner(1.0).select_action(n) == A1
    n.q[A3] = 0.61
    assert planner(1.0).select_action(n) == A3


def test_unvisited_acts_use_q0_not_their_stored_q() -> None:
    # A stale q entry for an act with N = 0 must be ignored.
    n = node([0.2] * 5, [5, 5, 0, 5, 5], [0.5, 0.5, 9.0, 0.5, 0.5])
    # visited: .5 + .2*sqrt(20)/6 = .649; untried a2: q0 + .2*sqrt(20) = q0 + .894
    assert planner(1.0, q0=0.0).select_action(n) == A2
    n = node([0.2] * 5, [5, 5, 0, 5, 5], [0.5, 0.5, 9.0, 0.5, 0.5])
    assert planner(0.1, q0=0.0).select_action(n) == A0       # untried: 0 + .089 < .5 + .015


@pytest.mark.parametrize("idx", range(len(CASES["select"])))
def test_select_matches_reference(idx: int) -> None:
    case = CASES["select"][idx]
    n = Node(prior=case["prior"], visits=case["visits"], q=case["q"])
    assert planner(case["c_puct"], case["q0"]).select_action(n) == case["action"]


def test_select_does_not_change_the_node() -> None:
    n = node([0.1, 0.2, 0.4, 0.2, 0.1], [1, 0, 2, 0, 3], [0.3, 0.0, 0.5, 0.0, 0.2])
    before = (dict(n.prior), dict(n.visits), dict(n.q), dict(n.children), list(n.realizations))
    planner(1.0).select_action(n)
    assert (n.prior, n.visits, n.q, n.children, n.realizations) == before


# --------------------------------------------------------------------------- simulate: differential


@pytest.mark.parametrize("idx", range(len(CASES["search"])))
def test_search_tree_matches_reference(idx: int) -> None:
    case = CASES["search"][idx]
    root, values, _ = run_config(case["config"])
    assert values == pytest.approx(case["values"], abs=1e-12)
    tree = {path: n for path, n in walk(root)}
    assert sorted(tree) == sorted(case["tree"])
    for path, expected in case["tree"].items():
        n = tree[path]
        assert n.expanded == expected["expanded"], path
        assert n.visits == expected["visits"], path
        visited = [a for a in ACTS if expected["visits"].get(a, 0) > 0]
        assert {a: n.q[a] for a in visited} == pytest.approx({a: expected["q"][a] for a in visited}, abs=1e-12)
        assert [state_json(s) for s in n.realizations] == expected["realizations"], path


@pytest.mark.parametrize("idx", range(len(CASES["search"])))
def test_search_decision_matches_reference(idx: int) -> None:
    case = CASES["search"][idx]
    cfg = case["config"]
    mcts = OpenLoopMCTS(PersuasionSimulator(max_turns=cfg["max_turns"], seed=cfg["seed"]), c_puct=cfg["c_puct"],
                        q0=cfg["q0"], max_realizations=cfg["max_realizations"], max_depth=cfg["max_depth"])
    result = mcts.search(DialogueState(inclination=cfg["inclination"]), cfg["n_simulations"])
    assert result.action == case["action"]
    assert (state_json(result.response) if result.response else None) == case["response"]


# --------------------------------------------------------------------------- simulate: properties


class SpySimulator(PersuasionSimulator):
    """Records every user-simulator call; optionally returns a constant value."""

    def __init__(self, constant_value: float | None = None, **kw) -> None:
        super().__init__(**kw)
        self.calls: list[tuple[tuple, str, int]] = []
        self.constant_value = constant_value

    def respond(self, state, act, sample=0):
        self.calls.append((state.turns, act, sample))
        return super().respond(state, act, sample)

    def value(self, state):
        return self.constant_value if self.constant_value is not None else super().value(state)


CFG = {"inclination": 0.0, "c_puct": 1.5, "q0": 0.0, "max_realizations": 2, "max_depth": 4, "n_simulations": 40,
       "seed": 11, "max_turns": 6}


def test_first_simulation_only_expands_the_root() -> None:
    sim = SpySimulator(seed=1)
    mcts = planner(sim=sim)
    root = Node()
    start = DialogueState(inclination=0.1)
    assert mcts.simulate(root, start) == pytest.approx(sim.value(start))
    assert root.expanded and root.prior == pytest.approx(sim.prior(start))
    assert sum(root.visits.values()) == 0 and not root.children and not root.realizations and not sim.calls
    mcts.simulate(root, start)
    assert sum(root.visits.values()) == 1 and len(root.children) == 1 and len(sim.calls) == 1


def test_visit_counts_and_realizations_are_consistent() -> None:
    root, _, _ = run_config(CFG)
    assert sum(root.visits.values()) == CFG["n_simulations"] - 1
    for _, n in walk(root):
        for act, child in n.children.items():
            assert len(child.realizations) == min(CFG["max_realizations"], n.visits[act])
            assert n.visits[act] >= sum(child.visits.values()) + (1 if child.expanded else 0)
            assert 0.0 <= n.q[act] <= 1.0


def test_open_loop_realizations_use_sample_indices_in_order() -> None:
    sim = SpySimulator(max_turns=6, seed=11)
    root, _, _ = run_config(CFG, sim)
    # Each (node, act) edge asks the user simulator for samples 0, 1, ..., k-1 and then reuses them.
    per_edge: dict[tuple, list[int]] = {}
    for turns, act, sample in sim.calls:  # an edge is identified by the acts leading to it (open loop)
        per_edge.setdefault((tuple(a for a, _ in turns), act), []).append(sample)
    assert len(sim.calls) == sum(min(CFG["max_realizations"], n.visits[a]) for _, n in walk(root)
                                 for a in n.children)
    for samples in per_edge.values():
        assert samples == list(range(len(samples)))


def test_backup_is_a_running_mean_without_discount() -> None:
    sim = SpySimulator(constant_value=0.37, max_turns=6, seed=3)
    root, values, _ = run_config(CFG, sim)
    assert values == [0.37] * CFG["n_simulations"]
    for _, n in walk(root):
        for act in ACTS:
            if n.visits.get(act, 0) > 0:
                assert n.q[act] == pytest.approx(0.37, abs=1e-12)


def test_root_q_is_the_mean_of_the_values_through_each_act() -> None:
    # With max_depth = 1 a simulation takes one root act and evaluates the state it realises; the i-th
    # visit of an act uses realization i % k, so Q(root, a) is the mean of those values.
    sim = PersuasionSimulator(max_turns=6, seed=5)
    k = 2
    mcts = planner(2.0, sim=sim, max_realizations=k, max_depth=1)
    root, start = Node(), DialogueState(inclination=0.2)
    values = [mcts.simulate(root, start) for _ in range(15)]
    assert sum(root.visits.values()) == 14
    seen = []
    for act, child in root.children.items():
        assert not child.expanded
        n = root.visits[act]
        leafs = [sim.value(child.realizations[i % k]) for i in range(n)]
        seen += leafs
        assert root.q[act] == pytest.approx(sum(leafs) / n, abs=1e-12)
    assert sorted(seen) == pytest.approx(sorted(values[1:]), abs=1e-12)


def test_terminal_root_is_evaluated_not_expanded() -> None:
    sim = PersuasionSimulator()
    done = DialogueState(turns=(("propose_donation", "agrees"),), inclination=1.0, outcome="donated")
    root = Node()
    assert planner(sim=sim).simulate(root, done) == 1.0
    assert not root.expanded and not root.children


def test_terminal_states_stop_the_descent() -> None:
    # max_turns = 1: every act ends the dialogue, so children are never expanded.
    sim = PersuasionSimulator(max_turns=1, seed=2)
    mcts = planner(sim=sim, max_depth=5)
    root = Node()
    for _ in range(20):
        mcts.simulate(root, DialogueState(inclination=0.5))
    assert sum(root.visits.values()) == 19
    for child in root.children.values():
        assert not child.expanded and not child.children


def test_single_realization_reuses_the_first_response() -> None:
    sim = SpySimulator(max_turns=6, seed=8)
    cfg = dict(CFG, max_realizations=1, n_simulations=30)
    root, _, _ = run_config(cfg, sim)
    assert all(sample == 0 for _, _, sample in sim.calls)
    for _, n in walk(root):
        assert len(n.realizations) <= 1
