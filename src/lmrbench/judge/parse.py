"""Parse a judge's answer into a validated verdict. A failure is a failure, never a grade."""

from __future__ import annotations

import json
import re

from pydantic import ValidationError

from lmrbench.judge.models import JudgeVerdict

REFUSAL = re.compile(r"\b(I can(?:no|')t|I am unable|I'm unable|I won't|cannot (?:help|assist|evaluate))\b", re.I)


class VerdictError(ValueError):
    """The answer holds no valid verdict. `refusal` tells a refusal from a malformed answer."""

    def __init__(self, message: str, refusal: bool = False) -> None:
        super().__init__(message)
        self.refusal = refusal


def _json_objects(text: str) -> list[str]:
    """Balanced {...} substrings, fenced ones first, last first within each group."""
    fenced = re.findall(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    found, depth, start, in_str, esc = [], 0, -1, False, False
    for i, ch in enumerate(text):
        if in_str:
            esc = not esc and ch == "\\"
            if ch == '"' and not esc:
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                found.append(text[start : i + 1])
    return list(reversed(fenced)) + list(reversed(found))


def parse_verdict(text: str) -> JudgeVerdict:
    """The last valid JSON verdict in the answer; raises VerdictError."""
    candidates = _json_objects(text)
    errors = []
    for cand in candidates:
        try:
            obj = json.loads(cand)
        except json.JSONDecodeError as exc:
            errors.append(f"invalid JSON ({exc.msg})")
            continue
        if isinstance(obj, dict) and isinstance(obj.get("category"), str) and obj["category"].strip().isdigit():
            obj["category"] = int(obj["category"].strip())
        try:
            return JudgeVerdict.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            errors.append(f"field '{'.'.join(map(str, first['loc']))}': {first['msg']}")
    if not candidates:
        if REFUSAL.search(text):
            raise VerdictError("the judge refused", refusal=True)
        truncated = "{" in text
        raise VerdictError("no JSON object in the answer" + (" (truncated?)" if truncated else ""))
    raise VerdictError("; ".join(errors[:3]))
