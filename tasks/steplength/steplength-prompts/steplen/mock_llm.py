"""A scripted stand-in for an LLM, so the pipeline runs offline and deterministically.

It solves the toy problems of ``steplen.data`` by reading the last question in the prompt, but it only
carries out as many operations as its "reasoning budget" allows, and the budget grows with the number
of reasoning steps it was shown. This caricatures the effect the paper measures; it says nothing
about real models.
"""

from __future__ import annotations

import re

from steplen import templates as T

_START = re.compile(r"has (\d+) ")
_OPS = re.compile(r"(buys (\d+) more|gives away (\d+))")
_STEP_LINE = re.compile(r"^Step \d+: ", re.MULTILINE)


class ScriptedReasoner:
    def __init__(self, base_budget: int = 1) -> None:
        self.base_budget = base_budget

    def budget(self, prompt: str) -> int:
        blocks = prompt.split(T.DEMO_SEPARATOR)
        demos = blocks[:-1]
        if demos:
            steps = sum(len(_STEP_LINE.findall(b)) for b in demos)
            return self.base_budget + round(steps / len(demos))
        query = blocks[-1]
        if T.MORE_STEPS_TRIGGER in query:
            return self.base_budget + 4
        if T.COT_TRIGGER in query:
            return self.base_budget + 2
        return self.base_budget

    def complete(self, prompt: str) -> str:
        question = prompt.split(T.DEMO_SEPARATOR)[-1]
        start = _START.search(question)
        if start is None:
            return "I do not know."
        value = int(start.group(1))
        budget = self.budget(prompt)
        lines = []
        for i, m in enumerate(_OPS.finditer(question)):
            if i >= budget:
                break  # out of budget: the remaining operations are silently skipped
            if m.group(2) is not None:
                value += int(m.group(2))
            else:
                value -= int(m.group(3))
            lines.append(f"After operation {i + 1} there are {value}.")
        lines.append(T.FINAL_ANSWER.format(answer=value))
        return " ".join(lines)


def extract_answer(completion: str) -> str | None:
    """The number after the last "the answer is", if any."""
    found = re.findall(r"the answer is (-?\d+)", completion)
    return found[-1] if found else None
