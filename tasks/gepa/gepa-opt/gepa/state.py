"""The optimiser's state: the rollout budget, the candidate pool with its score matrix and ancestry, and the
record of one iteration."""
from __future__ import annotations

from dataclasses import dataclass, field

from gepa.program import Program


class RolloutBudget:
    """Counts rollouts against the budget B. A charge is never refused: the loop checks `exhausted` before each
    iteration, so the last iteration may overrun B."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.used = 0

    def charge(self, n: int) -> None:
        """Record `n` more rollouts."""
        if n < 0:
            raise ValueError("cannot charge a negative number of rollouts")
        self.used += n

    @property
    def exhausted(self) -> bool:
        return self.used >= self.total


@dataclass
class CandidatePool:
    """The candidates P found so far, in the order they were added (index 0 is the seed program)."""

    programs: list[Program] = field(default_factory=list)
    parents: list[int | None] = field(default_factory=list)
    """A: the index of each candidate's parent (None for the seed)."""
    scores: list[list[float]] = field(default_factory=list)
    """S: scores[k][i] is candidate k's score on the i-th instance of D_pareto."""
    found_at: list[int] = field(default_factory=list)
    """The budget's `used` count at the moment each candidate was added (its D_pareto evaluation included)."""
    module_cursor: list[int] = field(default_factory=list)
    """For each candidate, the module that `select_module` picks next for it (a child starts at its parent's)."""

    def add(self, program: Program, parent: int | None, scores: list[float], found_at: int) -> int:
        """Append a candidate with its parent and its D_pareto scores; returns its index."""
        if self.scores and len(scores) != len(self.scores[0]):
            raise ValueError(f"expected {len(self.scores[0])} scores, got {len(scores)}")
        if parent is not None and not 0 <= parent < len(self.programs):
            raise IndexError(f"no candidate {parent}")
        self.programs.append(program)
        self.parents.append(parent)
        self.scores.append(list(scores))
        self.found_at.append(found_at)
        self.module_cursor.append(0 if parent is None else self.module_cursor[parent])
        return len(self.programs) - 1

    def mean_scores(self) -> list[float]:
        """Each candidate's average score over D_pareto."""
        return [sum(row) / len(row) for row in self.scores]

    def best_index(self) -> int:
        """The candidate with the highest average D_pareto score (the lowest index among equals)."""
        means = self.mean_scores()
        return max(range(len(means)), key=lambda k: means[k])

    def lineage(self, k: int) -> list[int]:
        """Candidate k and its ancestors, from k back to the seed."""
        chain = [k]
        while (parent := self.parents[chain[-1]]) is not None:
            chain.append(parent)
        return chain


@dataclass(frozen=True)
class IterationRecord:
    """What one iteration of the loop did."""

    parent: int
    """k: the index of the selected candidate."""
    module: int
    """j: the index (in MODULE_NAMES) of the module that was mutated."""
    minibatch: list[int]
    """The indices into D_feedback of the minibatch M, as the sampler returned them."""
    instruction: str
    """The new instruction proposed for module j."""
    parent_scores: list[float]
    """The parent's score on each instance of M, in minibatch order."""
    child_scores: list[float]
    """The new candidate's score on each instance of M, in minibatch order."""
    accepted: bool
    """Whether the new candidate entered the pool."""
    child: int | None
    """Its index in the pool if accepted, else None."""
    rollouts_used: int
    """The budget's `used` count at the end of the iteration."""
