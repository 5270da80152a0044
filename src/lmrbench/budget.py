"""The agent setting's budget: the steps, tokens and wall-clock time an agent may spend on one implementation.

The budget is part of the benchmark (a setting without one measures persistence, not ability): every split declares
a default, a task's info.json may set its own, and a run's options (`--max-steps`, `--max-total-tokens`,
`--max-wall-s`) override both. Every agent prediction records the budget in force and what it used of it, the
evaluation carries that record on, and the report draws pass rate against budget from it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BudgetField = Literal["max_steps", "max_tokens", "max_wall_s"]
BUDGET_FIELDS: tuple[BudgetField, ...] = ("max_steps", "max_tokens", "max_wall_s")


class Budget(BaseModel):
    """What an agent may spend on one implementation; it stops (outcome `limit`) when any one runs out."""

    model_config = ConfigDict(extra="forbid")

    max_steps: int = Field(ge=1, description="Model calls (each reply with its commands is one step).")
    max_tokens: int = Field(ge=1, description="Input plus output tokens over the whole episode.")
    max_wall_s: float = Field(gt=0, description="Wall-clock seconds of the whole episode, commands included.")

    def statement(self) -> str:
        """The budget in words, as INSTRUCTIONS.md states it."""
        return (f"at most {self.max_steps} steps (model calls), {self.max_tokens:,} tokens (input plus output, "
                f"over the whole episode) and {_minutes(self.max_wall_s)} of wall-clock time")


class BudgetOverride(BaseModel):
    """A partial budget: a task's info.json field `budget`, or a run's options. Unset fields keep the default."""

    model_config = ConfigDict(extra="forbid")

    max_steps: int | None = Field(default=None, ge=1, description="Model calls; None keeps the default.")
    max_tokens: int | None = Field(default=None, ge=1, description="Input + output tokens; None keeps the default.")
    max_wall_s: float | None = Field(default=None, gt=0, description="Wall seconds; None keeps the default.")


# lite and main (and the original layout): the agent's limits since agent-v1, unchanged so that their results are.
DEFAULT_BUDGET = Budget(max_steps=30, max_tokens=400_000, max_wall_s=1800.0)
# upstream: a whole feature or system inside a real library (docs/upstream.md, "The agent budget"); 50 steps is the
# original LMR-Bench agents' iteration cap (OpenHands CodeActAgent, max_iterations 50).
UPSTREAM_BUDGET = Budget(max_steps=50, max_tokens=1_250_000, max_wall_s=2700.0)
SPLIT_BUDGETS: dict[str, Budget] = {"lite": DEFAULT_BUDGET, "main": DEFAULT_BUDGET, "upstream": UPSTREAM_BUDGET}

Origin = Literal["split", "task", "run"]


class BudgetUse(BaseModel):
    """The budget in force for one prediction and what was spent of it (None: not measured, e.g. an outside
    agent's steps). Recorded in the prediction's meta and carried on by its evaluation."""

    budget: Budget = Field(description="The budget in force.")
    origin: dict[BudgetField, Origin] = Field(
        default_factory=dict, description="Where each field came from: the split's default, the task's info.json, "
        "or the run's options.")
    steps: int | None = Field(default=None, ge=0, description="Steps used until the agent stopped.")
    tokens: int | None = Field(default=None, ge=0, description="Input + output tokens used.")
    wall_s: float | None = Field(default=None, ge=0, description="Wall seconds from start to submit (or stop).")

    def used(self, field: BudgetField) -> float | None:
        """What was spent against one budget field."""
        return {"max_steps": self.steps, "max_tokens": self.tokens, "max_wall_s": self.wall_s}[field]


def split_budget(split: str | None) -> Budget:
    """A split's default budget; the original layout (no split) gets lite/main's."""
    return SPLIT_BUDGETS.get(split or "", DEFAULT_BUDGET)


def resolve_budget(split: str | None, task: BudgetOverride | None = None,
                   run: BudgetOverride | None = None) -> BudgetUse:
    """The budget in force: the split's default, then the task's own fields, then the run's (nothing used yet)."""
    values = split_budget(split).model_dump()
    origin: dict[BudgetField, Origin] = dict.fromkeys(BUDGET_FIELDS, "split")
    layers: list[tuple[BudgetOverride | None, Origin]] = [(task, "task"), (run, "run")]
    for layer, name in layers:
        for field in BUDGET_FIELDS:
            value = getattr(layer, field) if layer is not None else None
            if value is not None:
                values[field], origin[field] = value, name
    return BudgetUse(budget=Budget.model_validate(values), origin=origin)


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 60 else f"{seconds:g} seconds"
