"""Running a program on one instance: the compound system and its trace."""
from __future__ import annotations

from dataclasses import dataclass

from gepa.lm import RuleLM
from gepa.program import MODULE_NAMES, Program


@dataclass(frozen=True)
class ModuleCall:
    """One module's call during a run: its index in MODULE_NAMES, the text it got and the text it returned."""

    module: int
    input: str
    output: str


@dataclass(frozen=True)
class Trace:
    """Every module call of one run, in call order, and the system's final output."""

    calls: tuple[ModuleCall, ...]
    output: str


def run_program(program: Program, lm: RuleLM, text: str) -> Trace:
    """Run the pipeline: each module in MODULE_NAMES order gets the previous module's output."""
    calls = []
    for module in range(len(MODULE_NAMES)):
        out = lm(program.instructions[module], text)
        calls.append(ModuleCall(module, text, out))
        text = out
    return Trace(tuple(calls), text)
