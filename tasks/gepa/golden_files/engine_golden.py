"""GEPA's optimisation loop (Algorithm 1) and its Pareto-based candidate selection (Algorithm 2)."""
from __future__ import annotations

import random

from gepa.config import GEPAConfig
from gepa.data import Example, MinibatchSampler, split_train
from gepa.lm import RuleLM
from gepa.metric import Rollout, rollouts
from gepa.program import Program
from gepa.reflection import ReflectionRecord, RuleReflector, build_reflection_prompt, extract_instruction
from gepa.selection import sample_proportional, select_module
from gepa.state import CandidatePool, IterationRecord, RolloutBudget


def pareto_fronts(scores: list[list[float]]) -> list[set[int]]:
    """The instance-wise Pareto sets P*[i] of Algorithm 2.

    Args:
        scores: the score matrix S, ``scores[k][i]`` = candidate k's score on instance i of D_pareto; at least one
            candidate, every row the same positive length.

    Returns:
        One set of candidate indices per instance i, in instance order.

    Raises:
        ValueError: if `scores` is empty or its rows are empty or of different lengths.
    """
    if not scores or not scores[0] or any(len(row) != len(scores[0]) for row in scores):
        raise ValueError("scores must be a non-empty matrix with rows of equal, positive length")
    fronts = []
    for i in range(len(scores[0])):
        best = max(row[i] for row in scores)
        fronts.append({k for k, row in enumerate(scores) if row[i] == best})
    return fronts


def prune_dominated(fronts: list[set[int]]) -> list[set[int]]:
    """The Pareto sets with the dominated candidates removed (P-hat*[i] of Algorithm 2).

    Args:
        fronts: P*[i] for each instance i, as `pareto_fronts` returns them.

    Returns:
        New sets, one per instance, in instance order (the input is not modified).
    """
    wins: dict[int, set[int]] = {}
    for i, front in enumerate(fronts):
        for k in front:
            wins.setdefault(k, set()).add(i)
    dominated = {k for k in wins if any(wins[k] < wins[other] for other in wins if other != k)}
    return [front - dominated for front in fronts]


def select_candidate(scores: list[list[float]], rng: random.Random) -> int:
    """SELECTCANDIDATE (Algorithm 2): sample the index of the candidate to mutate next.

    Args:
        scores: the score matrix S, ``scores[k][i]`` = candidate k's score on instance i of D_pareto.
        rng: the optimiser's generator (the only source of randomness used).

    Returns:
        The index k of the selected candidate.

    Raises:
        ValueError: as `pareto_fronts`.
    """
    fronts = prune_dominated(pareto_fronts(scores))
    frequency: dict[int, int] = {}
    for front in fronts:
        for k in front:
            frequency[k] = frequency.get(k, 0) + 1
    return sample_proportional(rng, frequency)


class GEPA:
    """GEPA (Algorithm 1) on a program with the repository's task model, metric and reflection LM.

    Args:
        seed: the program to start from.
        trainset: D_train (split by `split_train`).
        config: the loop's hyper-parameters.
        lm: the task model the program's modules call.
        reflector: the reflection LM.
        rng: the generator for candidate selection.

    Attributes:
        feedback_set, pareto_set: D_feedback and D_pareto.
        sampler: the minibatch sampler over D_feedback (its own generator, seeded with `config.minibatch_seed`).
        budget: the rollout budget B.
        pool: the candidates, their ancestry and their D_pareto scores.
        history: one record per iteration run so far.

    Raises:
        ValueError: as `split_train` and `MinibatchSampler`.
    """

    def __init__(self, seed: Program, trainset: list[Example], config: GEPAConfig, lm: RuleLM,
                 reflector: RuleReflector, rng: random.Random) -> None:
        self.seed, self.config, self.lm, self.reflector, self.rng = seed, config, lm, reflector, rng
        self.feedback_set, self.pareto_set = split_train(trainset, config.n_pareto)
        self.sampler = MinibatchSampler(len(self.feedback_set), config.minibatch_size,
                                        random.Random(config.minibatch_seed))
        self.budget = RolloutBudget(config.max_rollouts)
        self.pool = CandidatePool()
        self.history: list[IterationRecord] = []

    def initialize(self) -> None:
        """Put the seed program into the empty pool with its scores on D_pareto (lines 1-3 of Algorithm 1).

        Raises:
            RuntimeError: if the pool is not empty.
        """
        if self.pool.programs:
            raise RuntimeError("the pool is already initialised")
        scores = self.evaluate(self.seed, self.pareto_set)
        self.pool.add(self.seed, None, [r.feedback.score for r in scores], self.budget.used)

    def evaluate(self, program: Program, examples: list[Example]) -> list[Rollout]:
        """The rollouts of `program` on `examples`, in order; charged to the budget."""
        self.budget.charge(len(examples))
        return rollouts(program, examples, self.lm)

    def reflective_dataset(self, runs: list[Rollout], module: int) -> list[ReflectionRecord]:
        """The reflective dataset of one module for a set of rollouts.

        Args:
            runs: rollouts of one program (as `evaluate` returns them).
            module: the index of the module (in MODULE_NAMES).

        Returns:
            One record per rollout, in the order of `runs`.
        """
        records = []
        for run in runs:
            call = next(c for c in run.trace.calls if c.module == module)
            records.append(ReflectionRecord(call.input, call.output, run.feedback.module_feedback[module]))
        return records

    def step(self) -> IterationRecord:
        """One iteration of the loop (the body of the while loop of Algorithm 1) on the initialised pool.

        Returns:
            The record of the iteration (also appended to `history`).

        Raises:
            RuntimeError: if the pool has not been initialised.
        """
        if not self.pool.programs:
            raise RuntimeError("initialize() must run first")
        k = select_candidate(self.pool.scores, self.rng)
        j = select_module(self.pool, k)
        batch = self.sampler.next_batch()
        examples = [self.feedback_set[i] for i in batch]
        parent = self.pool.programs[k]
        before = self.evaluate(parent, examples)
        prompt = build_reflection_prompt(parent.instructions[j], self.reflective_dataset(before, j))
        instruction = extract_instruction(self.reflector.complete(prompt))
        child = parent.with_instruction(j, instruction)
        after = self.evaluate(child, examples)
        parent_scores = [r.feedback.score for r in before]
        child_scores = [r.feedback.score for r in after]
        accepted = sum(child_scores) > sum(parent_scores)
        index = None
        if accepted:
            pareto = [r.feedback.score for r in self.evaluate(child, self.pareto_set)]
            index = self.pool.add(child, k, pareto, self.budget.used)
        record = IterationRecord(k, j, batch, instruction, parent_scores, child_scores, accepted, index,
                                 self.budget.used)
        self.history.append(record)
        return record

    def run(self) -> Program:
        """Run Algorithm 1 from an empty pool until the budget is exhausted.

        Returns:
            The candidate with the highest average score on D_pareto (`CandidatePool.best_index`).
        """
        self.initialize()
        while not self.budget.exhausted:
            self.step()
        return self.pool.programs[self.pool.best_index()]
