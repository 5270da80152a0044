"""Dialogue policies: baselines and the GDP-Zero planner, all behind one ``act(state)`` interface."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from gdpzero.mcts import OpenLoopMCTS, SearchResult
from gdpzero.simulator import DialogueState, PersuasionSimulator


class PriorPolicy:
    """Use the act the prior likes best (what one-shot prompting of the LLM would do)."""

    name = "prior"

    def __init__(self, simulator: PersuasionSimulator) -> None:
        self.sim = simulator

    def act(self, state: DialogueState) -> str:
        prior = self.sim.prior(state)
        return max(self.sim.acts, key=lambda a: prior[a])


class RandomPolicy:
    name = "random"

    def __init__(self, simulator: PersuasionSimulator, seed: int = 0) -> None:
        self.sim = simulator
        self.rng = random.Random(seed)

    def act(self, state: DialogueState) -> str:
        return self.rng.choice(self.sim.acts)


@dataclass
class GDPZeroPolicy:
    """Plan every turn with open-loop MCTS on the planner's own simulator."""

    planner: OpenLoopMCTS
    n_simulations: int = 20
    name: str = "gdpzero"
    history: list[SearchResult] = field(default_factory=list)

    def act(self, state: DialogueState) -> str:
        result = self.planner.search(state, self.n_simulations)
        self.history.append(result)
        return result.action


def run_dialogue(policy, user: PersuasionSimulator, start: DialogueState, sample: int = 0) -> DialogueState:
    """Play one dialogue against ``user`` (a simulator with its own seed) until it ends."""
    state = start
    while not user.is_terminal(state):
        state = user.respond(state, policy.act(state), sample=sample)
    return state
