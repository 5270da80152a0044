"""A deterministic fake model that ships in the package: it answers from a script, never from the network."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from lmrbench.models.base import Message, ModelError, ModelResponse, ModelSettings, ToolCall, ToolSpec, Usage

Script = Callable[[list[Message]], ModelResponse | str]


def _approx_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class FakeModel:
    """Answers each query with the next scripted reply, or by calling a function of the messages.

    A reply is a string (the answer text), a ModelResponse (text and tool calls), or a ModelError to raise.
    Usage counts characters/4 as tokens so token accounting has something to add up.
    """

    def __init__(self, replies: list[str | ModelResponse | ModelError] | Script, name: str = "fake",
                 settings: ModelSettings | None = None) -> None:
        self.name = name
        self.settings = settings or ModelSettings()
        self._replies = replies
        self._i = 0
        self.requests: list[list[Message]] = []

    def query(self, messages: list[Message], tools: list[ToolSpec] | None = None) -> ModelResponse:
        self.requests.append(list(messages))
        if callable(self._replies):
            reply: str | ModelResponse | ModelError = self._replies(messages)
        else:
            if self._i >= len(self._replies):
                raise ModelError("the fake model's script is exhausted")
            reply = self._replies[self._i]
            self._i += 1
        if isinstance(reply, ModelError):
            raise reply
        resp = reply if isinstance(reply, ModelResponse) else ModelResponse(content=reply)
        prompt = sum(_approx_tokens(m.content) for m in messages)
        usage = Usage(input_tokens=prompt, output_tokens=_approx_tokens(resp.content), calls=1)
        return resp.model_copy(update={"usage": usage})


def tool_call(name: str, call_id: str = "call_1", **arguments: object) -> ToolCall:
    """A scripted tool call."""
    return ToolCall(id=call_id, name=name, arguments=dict(arguments), raw_arguments=json.dumps(arguments))


def load_script(path: Path) -> list[str | ModelResponse | ModelError]:
    """A JSONL script: each line {"content": ..., "tool_calls": [{"name", "arguments"}]} or {"error": ...}."""
    out: list[str | ModelResponse | ModelError] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: line {n}: not JSON ({exc.msg})") from exc
        if "error" in obj:
            out.append(ModelError(str(obj["error"])))
            continue
        calls = [tool_call(c["name"], f"call_{n}_{i}", **c.get("arguments", {}))
                 for i, c in enumerate(obj.get("tool_calls", []))]
        out.append(ModelResponse(content=obj.get("content", ""), tool_calls=calls))
    return out
