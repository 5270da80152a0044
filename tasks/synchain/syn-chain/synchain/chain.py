"""Run the reasoning chain with a model, and an offline rule-based stand-in for an LLM."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from synchain.parse import DependencyParse
from synchain.prompts import opinion_prompt, sentiment_prompt, syntax_prompt

Model = Callable[[str], str]
POLARITIES = ("positive", "negative", "neutral")


@dataclass
class ChainResult:
    syntax: str
    opinion: str
    sentiment: str
    polarity: str | None


def run_chain(model: Model, parse: DependencyParse, aspect: str) -> ChainResult:
    p1 = syntax_prompt(parse, aspect)
    a1 = model(p1)
    p2 = opinion_prompt(p1, a1, aspect)
    a2 = model(p2)
    a3 = model(sentiment_prompt(p2, a2, aspect))
    found = re.findall("|".join(POLARITIES), a3.lower())
    return ChainResult(a1, a2, a3, found[-1] if found else None)


class RuleBasedReader:
    """Offline stand-in for an LLM. It reads the dependency table in the prompt (whitespace-separated columns
    under the header line), links the aspect to the adjectives that modify it or are predicated of it, and looks
    them up in a tiny polarity lexicon."""

    LEXICON = {"great": "positive", "delicious": "positive", "friendly": "positive",
               "slow": "negative", "terrible": "negative"}

    def __call__(self, prompt: str) -> str:
        rows = self._table(prompt)
        aspect = re.findall(r'"([^"]+)"', prompt)[-1]
        if prompt.rstrip().endswith("neutral?"):
            words = re.findall(r"opinion words: ([\w, ]*)", prompt)
            votes = [self.LEXICON.get(w.strip().lower()) for w in (words[-1].split(",") if words else [])]
            votes = [v for v in votes if v]
            return f"The sentiment is {votes[-1] if votes else 'neutral'}."
        if "Step 2." in prompt.splitlines()[-1]:
            related = re.findall(r"related words: ([\w, ]*)", prompt)
            words = [w.strip() for w in related[-1].split(",")] if related and related[-1].strip() else []
            ops = [w for w in words if w.lower() in self.LEXICON]
            return f"opinion words: {', '.join(ops)}"
        return f"related words: {', '.join(self._related(rows, aspect))}"

    @staticmethod
    def _table(prompt: str) -> list[dict[str, str]]:
        lines = prompt.splitlines()
        start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["ID", "TOKEN"])
        header = lines[start].split()
        rows = []
        for line in lines[start + 2:]:
            cells = line.split()
            if len(cells) != len(header):
                break
            rows.append(dict(zip(header, cells)))
        return rows

    @staticmethod
    def _related(rows: list[dict[str, str]], aspect: str) -> list[str]:
        by_id = {r["ID"]: r for r in rows}
        me = next((r for r in rows if r["TOKEN"] == aspect), None)
        if me is None:
            return []
        out = [r["TOKEN"] for r in rows if r["HEAD"] == me["ID"] and r["POS"] == "ADJ"]
        head = by_id.get(me["HEAD"])
        if head is not None and me["DEPREL"] == "nsubj":
            if head["POS"] == "ADJ":
                out.append(head["TOKEN"])
            out += [r["TOKEN"] for r in rows if r["HEAD"] == head["ID"] and r["DEPREL"] == "acomp"]
        return out
