"""A prompt program: the system's modules and one instruction (prompt) per module."""
from __future__ import annotations

from dataclasses import dataclass

MODULE_NAMES: tuple[str, ...] = ("clean", "format")
"""The modules of the pipeline, in the order the system calls them: `clean` normalises the raw text, `format`
turns the cleaned text into the final answer."""


@dataclass(frozen=True)
class Program:
    """A candidate: the instruction of every module, indexed like MODULE_NAMES."""

    instructions: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.instructions) != len(MODULE_NAMES):
            raise ValueError(f"a program has {len(MODULE_NAMES)} instructions, got {len(self.instructions)}")

    def with_instruction(self, module: int, text: str) -> Program:
        """A copy of this program with the instruction of `module` replaced by `text`."""
        if not 0 <= module < len(MODULE_NAMES):
            raise IndexError(f"no module {module}")
        items = list(self.instructions)
        items[module] = text
        return Program(tuple(items))


def seed_program() -> Program:
    """The unoptimised program a run starts from."""
    return Program(("Clean up the input text.", "Write the final answer from the cleaned text."))
