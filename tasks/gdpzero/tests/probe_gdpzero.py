"""Probe for gdpzero/1: OpenLoopMCTS.select_action and OpenLoopMCTS.simulate in gdpzero/mcts.py. Runs in the
sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_gdpzero.py add the hand-checked choices and the search's properties."""

from __future__ import annotations

import json
from pathlib import Path

from gdpzero.mcts import Node, OpenLoopMCTS
from gdpzero.simulator import ACTS, DialogueState, PersuasionSimulator
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "gdpzero_cases.json").read_text(encoding="utf-8"))
A0, A1, A2, A3, A4 = ACTS
# Trees, counts, states and choices are compared exactly; backed-up values and Q within 1e-12 (the old
# tests' pytest.approx(abs=1e-12)).
TREE = dict(compare="exact", outputs={"values*": {"compare": "close", "rtol": 0.0, "atol": 1e-12},
                                      "tree.*.q.*": {"compare": "close", "rtol": 0.0, "atol": 1e-12}})
CLOSE = dict(rtol=0.0, atol=1e-12)  # property cases: counts and strings exact, floats within 1e-12


class GuardedMCTS(OpenLoopMCTS):
    """The candidate's planner; a chosen act that is not a string is emitted as its type name (the harness's
    comparison of an array with a string raises instead of failing)."""

    def select_action(self, node: Node):
        act = super().select_action(node)
        return act if isinstance(act, str) else f"<{type(act).__name__}>"


def node(prior, visits, q) -> Node:
    return Node(prior=dict(zip(ACTS, prior)), visits=dict(zip(ACTS, visits)), q=dict(zip(ACTS, q)))


def planner(c: float = 1.0, q0: float = 0.0, sim: PersuasionSimulator | None = None, **kw) -> OpenLoopMCTS:
    return GuardedMCTS(sim or PersuasionSimulator(), c_puct=c, q0=q0, **kw)


def state_json(s: DialogueState) -> dict:
    return {"turns": [list(t) for t in s.turns], "inclination": s.inclination, "outcome": s.outcome}


def walk(n: Node, path: str = ""):
    yield path, n
    for act, child in n.children.items():
        yield from walk(child, f"{path}/{act}")


def tree_data(root: Node) -> dict:
    """Every node by path: expanded, N(s, .), Q(s, a) of the acts taken (others are free), realizations."""
    return {path: {"expanded": n.expanded, "visits": dict(n.visits),
                   "q": {a: n.q[a] for a in ACTS if n.visits.get(a, 0) > 0},
                   "realizations": [state_json(s) for s in n.realizations]}
            for path, n in walk(root)}


def run_config(cfg: dict, sim: PersuasionSimulator | None = None) -> tuple[Node, list[float], OpenLoopMCTS]:
    sim = sim or PersuasionSimulator(max_turns=cfg["max_turns"], seed=cfg["seed"])
    mcts = OpenLoopMCTS(sim, c_puct=cfg["c_puct"], q0=cfg["q0"], max_realizations=cfg["max_realizations"],
                        max_depth=cfg["max_depth"])
    root = Node()
    start = DialogueState(inclination=cfg["inclination"])
    values = [mcts.simulate(root, start) for _ in range(cfg["n_simulations"])]
    return root, values, mcts


# --------------------------------------------------------------------------- select_action by hand (check file)


@case(compare="exact")
def puct_hand_computed():
    n = node([0.4, 0.3, 0.1, 0.1, 0.1], [3, 1, 0, 0, 0], [0.5, 0.9, 0.0, 0.0, 0.0])
    out = {"acts": list(ACTS), "c1_q0": planner(1.0, q0=0.0).select_action(n),
           "c1_q1.1": planner(1.0, q0=1.1).select_action(n), "c3": planner(3.0).select_action(n)}
    n.q[A1] = -2.0
    out["c10_low_q"] = planner(10.0).select_action(n)
    out["c0_low_q"] = planner(0.0).select_action(n)
    return out


@case(compare="exact")
def fresh_node_follows_the_prior():
    n = node([0.1, 0.2, 0.4, 0.2, 0.1], [0] * 5, [0.0] * 5)
    return {"acts": list(ACTS), "c1": planner(1.0).select_action(n), "c1_q0.7": planner(1.0, q0=0.7).select_action(n),
            "c0_q0.3": planner(0.0, q0=0.3).select_action(n)}


@case(compare="exact")
def exact_ties_go_to_the_earliest_act():
    out = {"acts": list(ACTS), "uniform": planner(1.0).select_action(node([0.2] * 5, [0] * 5, [0.0] * 5))}
    n = node([0.1, 0.3, 0.1, 0.3, 0.2], [2, 4, 2, 4, 1], [0.2, 0.6, 0.2, 0.6, 0.1])
    out["a1_a3_tied"] = planner(1.0).select_action(n)
    n.q[A3] = 0.61
    out["a3_better"] = planner(1.0).select_action(n)
    return out


@case(compare="exact")
def unvisited_acts_use_q0_not_their_stored_q():
    n = node([0.2] * 5, [5, 5, 0, 5, 5], [0.5, 0.5, 9.0, 0.5, 0.5])
    out = {"acts": list(ACTS), "c1": planner(1.0, q0=0.0).select_action(n)}
    n = node([0.2] * 5, [5, 5, 0, 5, 5], [0.5, 0.5, 9.0, 0.5, 0.5])
    out["c0.1"] = planner(0.1, q0=0.0).select_action(n)
    return out


@case(params=range(len(CASES["select"])), compare="exact")
def select_matches_reference(idx):
    c = CASES["select"][idx]
    n = Node(prior=c["prior"], visits=c["visits"], q=c["q"])
    return {"action": planner(c["c_puct"], c["q0"]).select_action(n)}


def node_data(n: Node) -> dict:
    return {"prior": dict(n.prior), "visits": dict(n.visits), "q": dict(n.q), "children": sorted(n.children),
            "realizations": len(n.realizations)}


@case(compare="exact")
def select_does_not_change_the_node():
    n = node([0.1, 0.2, 0.4, 0.2, 0.1], [1, 0, 2, 0, 3], [0.3, 0.0, 0.5, 0.0, 0.2])
    before = node_data(n)
    planner(1.0).select_action(n)
    return {"before": before, "after": node_data(n)}


# --------------------------------------------------------------------------- simulate: differential


@case(params=range(len(CASES["search"])), **TREE)
def search_tree_matches_reference(idx):
    root, values, _ = run_config(CASES["search"][idx]["config"])
    return {"values": values, "tree": tree_data(root)}


@case(params=range(len(CASES["search"])), compare="exact")
def search_decision_matches_reference(idx):
    cfg = CASES["search"][idx]["config"]
    mcts = OpenLoopMCTS(PersuasionSimulator(max_turns=cfg["max_turns"], seed=cfg["seed"]), c_puct=cfg["c_puct"],
                        q0=cfg["q0"], max_realizations=cfg["max_realizations"], max_depth=cfg["max_depth"])
    result = mcts.search(DialogueState(inclination=cfg["inclination"]), cfg["n_simulations"])
    return {"action": result.action, "response": state_json(result.response) if result.response else None}


# --------------------------------------------------------------------------- simulate: properties (check file)


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


@case(compare="exact", outputs={"value": {"compare": "close", "rtol": 1e-6, "atol": 1e-12},
                                "prior.*": {"compare": "close", "rtol": 1e-6, "atol": 1e-12}})
def first_simulation_only_expands_the_root():
    sim = SpySimulator(seed=1)
    mcts = planner(sim=sim)
    root = Node()
    start = DialogueState(inclination=0.1)
    out = {"value": mcts.simulate(root, start), "start_value": sim.value(start), "start_prior": sim.prior(start),
           "expanded": root.expanded, "prior": dict(root.prior)}
    out["first"] = {"visits": sum(root.visits.values()), "children": len(root.children),
                    "realizations": len(root.realizations), "calls": len(sim.calls)}
    mcts.simulate(root, start)
    out["second"] = {"visits": sum(root.visits.values()), "children": len(root.children), "calls": len(sim.calls)}
    return out


@case(**CLOSE)
def visit_counts_and_realizations_are_consistent():
    root, _, _ = run_config(CFG)
    edges = [(n, act, child) for _, n in walk(root) for act, child in n.children.items()]
    return {"n_simulations": CFG["n_simulations"], "max_realizations": CFG["max_realizations"],
            "root_visits": sum(root.visits.values()),
            "edge_realizations": [len(child.realizations) for _, _, child in edges],
            "edge_visits": [n.visits[act] for n, act, _ in edges],
            "edge_child_visits": [sum(child.visits.values()) + (1 if child.expanded else 0) for _, _, child in edges],
            "edge_q": [n.q[act] for n, act, _ in edges]}


@case(**CLOSE)
def open_loop_realizations_use_sample_indices_in_order():
    sim = SpySimulator(max_turns=6, seed=11)
    root, _, _ = run_config(CFG, sim)
    # Each (node, act) edge asks the user simulator for samples 0, 1, ..., k-1 and then reuses them.
    per_edge: dict[str, list[int]] = {}
    for turns, act, sample in sim.calls:  # an edge is identified by the acts leading to it (open loop)
        per_edge.setdefault("/".join(a for a, _ in turns) + "|" + act, []).append(sample)
    return {"calls": len(sim.calls),
            "realized_edges": sum(min(CFG["max_realizations"], n.visits[a]) for _, n in walk(root) for a in n.children),
            "samples": per_edge}


@case(**CLOSE)
def backup_is_a_running_mean_without_discount():
    sim = SpySimulator(constant_value=0.37, max_turns=6, seed=3)
    root, values, _ = run_config(CFG, sim)
    return {"n_simulations": CFG["n_simulations"], "values": values,
            "tree": {path: {"q": {a: n.q[a] for a in ACTS if n.visits.get(a, 0) > 0}} for path, n in walk(root)}}


@case(**CLOSE)
def root_q_is_the_mean_of_the_values_through_each_act():
    # With max_depth = 1 a simulation takes one root act and evaluates the state it realises; the i-th
    # visit of an act uses realization i % k, so Q(root, a) is the mean of those values.
    sim = PersuasionSimulator(max_turns=6, seed=5)
    k = 2
    mcts = planner(2.0, sim=sim, max_realizations=k, max_depth=1)
    root, start = Node(), DialogueState(inclination=0.2)
    values = [mcts.simulate(root, start) for _ in range(15)]
    acts = {act: {"expanded": child.expanded, "q": root.q[act],
                  "leafs": [sim.value(child.realizations[i % k]) for i in range(root.visits[act])]}
            for act, child in root.children.items()}
    return {"root_visits": sum(root.visits.values()), "values": values, "tree": acts}


@case(compare="exact")
def terminal_root_is_evaluated_not_expanded():
    sim = PersuasionSimulator()
    done = DialogueState(turns=(("propose_donation", "agrees"),), inclination=1.0, outcome="donated")
    root = Node()
    return {"value": planner(sim=sim).simulate(root, done), "expanded": root.expanded,
            "children": len(root.children)}


@case(compare="exact")
def terminal_states_stop_the_descent():
    # max_turns = 1: every act ends the dialogue, so children are never expanded.
    sim = PersuasionSimulator(max_turns=1, seed=2)
    mcts = planner(sim=sim, max_depth=5)
    root = Node()
    for _ in range(20):
        mcts.simulate(root, DialogueState(inclination=0.5))
    return {"root_visits": sum(root.visits.values()),
            "children_expanded": [child.expanded for child in root.children.values()],
            "grandchildren": [len(child.children) for child in root.children.values()]}


@case(compare="exact")
def single_realization_reuses_the_first_response():
    sim = SpySimulator(max_turns=6, seed=8)
    cfg = dict(CFG, max_realizations=1, n_simulations=30)
    root, _, _ = run_config(cfg, sim)
    return {"samples": [sample for _, _, sample in sim.calls],
            "realizations": [len(n.realizations) for _, n in walk(root)]}
