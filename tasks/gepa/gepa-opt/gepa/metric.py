"""The evaluation metric mu and the feedback function mu_f, and rollouts of a program on a list of instances."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gepa.data import Example
from gepa.lm import RuleLM
from gepa.program import Program
from gepa.system import Trace, run_program


@dataclass(frozen=True)
class Feedback:
    """mu_f's result for one rollout: the score (mu) and a feedback text for each module (MODULE_NAMES order)."""

    score: float
    module_feedback: tuple[str, ...]


@dataclass(frozen=True)
class Rollout:
    """One execution of a program on one instance: the instance, the trace and the feedback."""

    example: Example
    trace: Trace
    feedback: Feedback


def score(answer: str, gold: str) -> float:
    """mu: the share of positions where the answer's hyphen-separated words equal the gold ones, over the longer
    of the two, rounded down to a multiple of 1/8 (so that sums of scores are exact)."""
    got, want = answer.split("-"), gold.split("-")
    hits = sum(a == b for a, b in zip(got, want))
    return math.floor(8 * hits / max(len(got), len(want))) / 8


def _clean_feedback(output: str, gold: str) -> str:
    if output == gold:
        return "The cleaned text is correct."
    issues = []
    if re.search(r"[A-Z]", output):
        issues.append("The cleaned text contains capital letters; it should be all lowercase.")
    if re.search(r"[0-9]", output):
        issues.append("The cleaned text still contains digits, which should be removed.")
    if output != " ".join(output.split()):
        issues.append("The cleaned text has repeated or stray spaces.")
    return " ".join(issues) or f"The cleaned text should be: {gold}"


def _format_feedback(answer: str, gold: str) -> str:
    if answer == gold:
        return "The final answer is correct."
    issues = []
    if " " in answer.strip():
        issues.append("Words in the answer must be joined by hyphens.")
    words = [w for w in re.split(r"[-\s]+", answer) if w]
    if len(set(words)) < len(words):
        issues.append("The answer repeats words.")
    if words != sorted(words):
        issues.append("The words are not in alphabetical order.")
    return " ".join(issues) or f"The expected answer is: {gold}"


def feedback(example: Example, trace: Trace) -> Feedback:
    """mu_f: the score of the final output and, per module, a text saying what is wrong with its output."""
    return Feedback(score(trace.output, example.gold_answer),
                    (_clean_feedback(trace.calls[0].output, example.gold_clean),
                     _format_feedback(trace.output, example.gold_answer)))


def rollouts(program: Program, examples: list[Example], lm: RuleLM) -> list[Rollout]:
    """Run `program` on each instance in order and score it with mu_f (one rollout per instance)."""
    out = []
    for example in examples:
        trace = run_program(program, lm, example.text)
        out.append(Rollout(example, trace, feedback(example, trace)))
    return out
