"""Reflective prompt mutation: the meta-prompt, the reflection LM's stand-in and parsing its reply."""
from __future__ import annotations

from dataclasses import dataclass

FENCE = "```"


@dataclass(frozen=True)
class ReflectionRecord:
    """One example of the reflective dataset of a module: what the module got, what it returned, and the
    feedback text mu_f gave about that module on this rollout."""

    input: str
    output: str
    feedback: str


def build_reflection_prompt(instruction: str, records: list[ReflectionRecord]) -> str:
    """The meta-prompt asking the reflection LM for a better instruction for one module."""
    examples = "\n\n".join(
        f"# Example {n}\n## Input\n{r.input}\n## Output\n{r.output}\n## Feedback\n{r.feedback}"
        for n, r in enumerate(records, start=1))
    return (f"I gave an assistant the following instruction for a task:\n{FENCE}\n{instruction}\n{FENCE}\n\n"
            "Here are inputs the assistant received, the response it gave for each, and feedback on how each "
            f"response could be better:\n{FENCE}\n{examples}\n{FENCE}\n\n"
            "Write a new instruction for the assistant. Read the inputs and the feedback closely, find what the "
            "assistant does wrong and the task-specific facts it needs, and put them into the instruction. "
            f"Give the new instruction inside {FENCE} blocks.")


def extract_instruction(reply: str) -> str:
    """The text between the first and the last code fence of the reflection LM's reply, stripped."""
    first, last = reply.find(FENCE), reply.rfind(FENCE)
    if first < 0 or last == first:
        raise ValueError("the reflection reply has no fenced instruction")
    return reply[first + len(FENCE):last].strip()


# Feedback phrase -> the operation phrase the stand-in adds to the instruction, in the order it prefers them.
_HINTS: tuple[tuple[str, str], ...] = (
    ("joined by hyphens", "join with hyphens"),
    ("capital letters", "lowercase"),
    ("still contains digits", "remove digits"),
    ("repeats words", "drop duplicate words"),
    ("alphabetical order", "sort words"),
    ("stray spaces", "collapse spaces"),
)


class RuleReflector:
    """The reflection LM's deterministic stand-in. It reads the meta-prompt, counts for each hint how many
    examples' feedback mention it, and adds the most frequent one not yet in the instruction as a new line
    (ties: the earlier hint in its table); with nothing to add it returns the instruction unchanged."""

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, prompt: str) -> str:
        self.calls += 1
        parts = prompt.split(FENCE)
        instruction, examples = parts[1].strip(), parts[3]
        feedbacks = [block.split("## Feedback\n", 1)[1] for block in examples.split("# Example ")[1:]]
        counts = {rule: sum(phrase in fb for fb in feedbacks) for phrase, rule in _HINTS
                  if rule not in instruction.lower()}
        best = max(counts, key=lambda rule: counts[rule], default=None)
        if best is not None and counts[best] > 0:
            instruction = f"{instruction}\n- {best}"
        return f"Here is the improved instruction.\n{FENCE}\n{instruction}\n{FENCE}"
