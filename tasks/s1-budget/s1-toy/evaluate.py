"""Sequential test-time scaling of the toy model with budget forcing, scored by Control, Scaling and Performance.

    python evaluate.py [--questions 30] [--seed 0]

Two sweeps: a maximum of thinking tokens (4, 8, 16 and none), and a minimum expressed as forced "Wait"s
(suppressing the end of thinking 0, 1, 2 and 4 times). Each setting's compute is the mean thinking tokens.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from s1.budget import budget_forced_generate, control, performance, scaling
from s1.config import BudgetConfig, ModelConfig
from s1.data import Question, toy_questions
from s1.model import ToyReasoner
from s1.tokenizer import ToyTokenizer


@dataclass(frozen=True)
class ScalingPoint:
    """One evaluated setting: its mean thinking tokens (the compute a) and its accuracy f(a)."""

    budget: BudgetConfig
    compute: float
    accuracy: float


@dataclass(frozen=True)
class SweepReport:
    """The points of a sweep and its three metrics (Section 3.2)."""

    points: list[ScalingPoint]
    control: float
    scaling: float
    performance: float


def evaluate_budget(model: ToyReasoner, tokenizer: ToyTokenizer, questions: list[Question],
                    budget: BudgetConfig) -> ScalingPoint:
    """Mean thinking tokens and accuracy of budget-forced generation over `questions`."""
    gens = [budget_forced_generate(model, tokenizer, q.prompt_ids, budget) for q in questions]
    compute = sum(g.num_thinking_tokens for g in gens) / len(gens)
    accuracy = sum(g.answer == q.answer for g, q in zip(gens, questions, strict=True)) / len(questions)
    return ScalingPoint(budget, compute, accuracy)


def sweep(model: ToyReasoner, tokenizer: ToyTokenizer, questions: list[Question], budgets: list[BudgetConfig],
          a_min: float, a_max: float) -> SweepReport:
    """Evaluate every budget and score the sweep."""
    points = [evaluate_budget(model, tokenizer, questions, b) for b in budgets]
    compute = [p.compute for p in points]
    accuracy = [p.accuracy for p in points]
    return SweepReport(points, control(compute, a_min, a_max), scaling(compute, accuracy), performance(accuracy))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tokenizer = ToyTokenizer()
    model = ToyReasoner(tokenizer, ModelConfig(seed=args.seed))
    questions = toy_questions(tokenizer, args.questions, args.seed)
    sweeps = {
        "maximum": ([BudgetConfig(max_thinking_tokens=m) for m in (4, 8, 16)] + [BudgetConfig()], 0.0, 16.0),
        "minimum (waits)": ([BudgetConfig(min_waits=w) for w in (0, 1, 2, 4)], 0.0, float("inf")),
    }
    for name, (budgets, a_min, a_max) in sweeps.items():
        report = sweep(model, tokenizer, questions, budgets, a_min, a_max)
        print(f"{name}: control {report.control:.2f} scaling {report.scaling:+.4f} "
              f"performance {report.performance:.3f}")
        for p in report.points:
            print(f"  max {p.budget.max_thinking_tokens} waits {p.budget.min_waits}: "
                  f"{p.compute:6.2f} thinking tokens, accuracy {p.accuracy:.3f}")


if __name__ == "__main__":
    main()
