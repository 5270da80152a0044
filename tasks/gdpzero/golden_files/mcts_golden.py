"""Open-loop Monte-Carlo tree search over dialogue acts, in the style of GDP-Zero."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gdpzero.simulator import DialogueState, PersuasionSimulator


@dataclass
class Node:
    """A node of the open-loop tree: it stands for a sequence of system acts, not for one dialogue state.

    prior:        P(s, a) for every act, set when the node is expanded (empty before).
    visits:       N(s, a), number of simulations that took act a from this node.
    q:            Q(s, a), mean value backed up through (s, a); only meaningful when N(s, a) > 0.
    children:     child node per act, created the first time the act is taken.
    realizations: dialogue states realised for this node (at most ``max_realizations``).
    """

    prior: dict[str, float] = field(default_factory=dict)
    visits: dict[str, int] = field(default_factory=dict)
    q: dict[str, float] = field(default_factory=dict)
    children: dict[str, Node] = field(default_factory=dict)
    realizations: list[DialogueState] = field(default_factory=list)

    @property
    def expanded(self) -> bool:
        return bool(self.prior)


@dataclass
class SearchResult:
    action: str                      # the act to use now
    visits: dict[str, int]           # N(root, a)
    q: dict[str, float]              # Q(root, a) (q0 for acts never taken)
    response: DialogueState | None   # the best realised state after ``action`` (response selection)
    root: Node


class OpenLoopMCTS:
    """GDP-Zero planner: PUCT selection, prior and value from the (scripted) LLM, open-loop states.

    c_puct:           exploration constant c of the PUCT rule.
    q0:               the Q value assumed for an act that has never been taken from a node.
    max_realizations: k, the number of distinct dialogue states kept per node.
    max_depth:        simulations stop (and use the value function) this many acts below the root.
    """

    def __init__(self, simulator: PersuasionSimulator, c_puct: float = 1.0, q0: float = 0.0,
                 max_realizations: int = 3, max_depth: int = 4) -> None:
        self.sim = simulator
        self.c_puct = c_puct
        self.q0 = q0
        self.max_realizations = max_realizations
        self.max_depth = max_depth

    def expand(self, node: Node, state: DialogueState) -> None:
        """Ask the prior for P(s, .) and initialise the statistics of every act."""
        node.prior = dict(self.sim.prior(state))
        node.visits = {a: 0 for a in self.sim.acts}
        node.q = {a: 0.0 for a in self.sim.acts}

    def select_action(self, node: Node) -> str:
        """The PUCT choice at an expanded node.

        score(a) = Q'(a) + c_puct * P(s, a) * sqrt(max(N(s), 1)) / (1 + N(s, a)),   N(s) = sum_b N(s, b),

        where Q'(a) = Q(s, a) if N(s, a) > 0 and Q'(a) = q0 for an act never taken. (The max(., 1)
        makes the first choice at a fresh node follow the prior instead of being a tie.) Acts are
        scored in the order of ``self.sim.acts``; on an exact tie the earliest act wins.
        """
        total = sum(node.visits[a] for a in self.sim.acts)
        explore = self.c_puct * math.sqrt(max(total, 1))
        best, best_score = None, -math.inf
        for a in self.sim.acts:
            n = node.visits[a]
            q = node.q[a] if n > 0 else self.q0
            score = q + explore * node.prior[a] / (1 + n)
            if score > best_score:
                best, best_score = a, score
        assert best is not None
        return best

    def simulate(self, root: Node, root_state: DialogueState) -> float:
        """Run one simulation from ``root`` (whose dialogue state is ``root_state``); return the leaf value.

        Descend from the root. At a node with realised state s and depth d (the root has depth 0):
          1. if s is terminal, or d == max_depth, the leaf value is ``sim.value(s)``; stop;
          2. if the node is not expanded, ``expand`` it with s; the leaf value is ``sim.value(s)``; stop;
          3. otherwise take a = ``select_action(node)``, create the child for a if needed, and realise the
             child's state (open loop): with i = N(s, a) before this simulation, if i < max_realizations,
             s' = ``sim.respond(s, a, sample=i)`` is appended to the child's ``realizations``; otherwise
             s' = child.realizations[i % max_realizations] is reused. Continue at the child with s'.
        Then back the leaf value v up every (node, act) on the path: N(s, a) += 1 and
        Q(s, a) += (v - Q(s, a)) / N(s, a) (a running mean, no discount; the first update sets Q = v).
        The root's own state is never stored in ``root.realizations``.
        """
        node, state, depth = root, root_state, 0
        path: list[tuple[Node, str]] = []
        while True:
            if self.sim.is_terminal(state) or depth == self.max_depth:
                value = self.sim.value(state)
                break
            if not node.expanded:
                self.expand(node, state)
                value = self.sim.value(state)
                break
            act = self.select_action(node)
            child = node.children.setdefault(act, Node())
            i = node.visits[act]
            if i < self.max_realizations:
                state = self.sim.respond(state, act, sample=i)
                child.realizations.append(state)
            else:
                state = child.realizations[i % self.max_realizations]
            path.append((node, act))
            node, depth = child, depth + 1
        for parent, act in reversed(path):
            parent.visits[act] += 1
            parent.q[act] += (value - parent.q[act]) / parent.visits[act]
        return value

    def search(self, state: DialogueState, n_simulations: int) -> SearchResult:
        """Plan the next act from ``state``: run the simulations, then commit to the most visited act.

        Ties in visit count go to the higher Q, then to the earlier act. The response is the realised
        state of the chosen act with the highest value (GDP-Zero's response selection).
        """
        root = Node()
        for _ in range(n_simulations):
            self.simulate(root, state)
        if not root.expanded:
            self.expand(root, state)
        q = {a: (root.q[a] if root.visits[a] > 0 else self.q0) for a in self.sim.acts}
        action = max(self.sim.acts, key=lambda a: (root.visits[a], q[a]))
        child = root.children.get(action)
        response = max(child.realizations, key=self.sim.value) if child and child.realizations else None
        return SearchResult(action=action, visits=dict(root.visits), q=q, response=response, root=root)
