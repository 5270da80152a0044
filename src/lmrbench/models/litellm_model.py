"""Any provider litellm speaks (OpenAI, Anthropic, Gemini, OpenRouter, OpenAI-compatible servers), with
retries of transient failures only, token and cost accounting, and the on-disk response cache."""

from __future__ import annotations

import json
import logging
import os
import random
import time
from types import ModuleType
from typing import Any

from lmrbench.models.base import Message, ModelError, ModelResponse, ModelSettings, ToolCall, ToolSpec, Usage
from lmrbench.models.cache import ResponseCache, request_key

# litellm would otherwise fetch its price table from the network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
LOCAL_KEY = "no-key"  # what is sent to a local server (--api-base) when no provider key is set
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm")


def quiet_litellm() -> ModuleType:
    """litellm, imported without its chatter: no "Give Feedback / Get Help" banner on each failure and no debug
    lines on stderr (our own records say what failed). Every use of litellm goes through here."""
    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    for name in LITELLM_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return litellm


def missing_credentials(name: str) -> list[str]:
    """The environment variables a provider needs and that are not set (litellm's own check), e.g.
    ['OPENAI_API_KEY'] for `openai/gpt-4o`; a name litellm cannot place is not judged here (the request itself then
    says what is wrong). A local server or a key in the settings needs none: the callers decide that."""
    try:
        found = quiet_litellm().validate_environment(model=name)
    except Exception:
        return []
    if found.get("keys_in_environment"):
        return []
    return [str(k) for k in found.get("missing_keys") or []]


def _to_wire(msg: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": msg.role, "content": msg.content}
    if msg.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": c.raw_arguments or json.dumps(c.arguments)}}
            for c in msg.tool_calls
        ]
    if msg.tool_call_id:
        out["tool_call_id"] = msg.tool_call_id
    return out


def _parse_call(raw: Any) -> ToolCall:
    fn = raw.function
    text = fn.arguments or ""
    try:
        args = json.loads(text) if text.strip() else {}
        error = None if isinstance(args, dict) else "arguments are not a JSON object"
    except json.JSONDecodeError as exc:
        args, error = {}, f"malformed JSON arguments: {exc.msg}"
    return ToolCall(id=raw.id or "call", name=fn.name or "", arguments=args if isinstance(args, dict) else {},
                    raw_arguments=text, parse_error=error)


def is_transient(exc: BaseException) -> bool:
    """Rate limits, timeouts, connection failures and 5xx are worth retrying; nothing else is."""
    litellm = quiet_litellm()

    transient = (litellm.RateLimitError, litellm.Timeout, litellm.APIConnectionError,
                 litellm.InternalServerError, litellm.ServiceUnavailableError)
    if isinstance(exc, transient):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


class LiteLLMModel:
    """A model named as litellm spells it, e.g. `openai/gpt-4o`, `anthropic/claude-...`, `openai/x` + api_base."""

    def __init__(self, name: str, settings: ModelSettings | None = None, cache: ResponseCache | None = None,
                 use_cache: bool = True) -> None:
        self.name = name
        self.settings = settings or ModelSettings()
        self.cache = cache or ResponseCache()
        self.use_cache = use_cache

    def _request(self, messages: list[Message], tools: list[ToolSpec] | None) -> dict[str, Any]:
        s = self.settings
        req: dict[str, Any] = {"model": self.name, "messages": [_to_wire(m) for m in messages],
                               "temperature": s.temperature, "max_tokens": s.max_tokens, **s.extra}
        if s.seed is not None:
            req["seed"] = s.seed
        if s.api_base:
            req["api_base"] = s.api_base
        if tools:
            req["tools"] = [{"type": "function", "function": t.model_dump()} for t in tools]
        return req

    def _call(self, req: dict[str, Any]) -> ModelResponse:
        litellm = quiet_litellm()

        if self.settings.api_base and "api_key" not in req and missing_credentials(self.name):
            req = req | {"api_key": LOCAL_KEY}  # a local server takes any key; the client will not send none
        raw = litellm.completion(**req, timeout=self.settings.timeout_s, num_retries=0, max_retries=0)
        choice = raw.choices[0]
        usage = getattr(raw, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=raw) or 0.0)
        except Exception:
            cost = 0.0
        return ModelResponse(
            content=choice.message.content or "",
            tool_calls=[_parse_call(c) for c in (choice.message.tool_calls or [])],
            finish_reason=choice.finish_reason or "stop",
            usage=Usage(input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                        output_tokens=getattr(usage, "completion_tokens", 0) or 0, cost_usd=cost, calls=1),
        )

    def query(self, messages: list[Message], tools: list[ToolSpec] | None = None) -> ModelResponse:
        req = self._request(messages, tools)
        key = request_key(req)
        if self.use_cache and (hit := self.cache.get(key)) is not None:
            usage = hit.usage.model_copy(update={"cost_usd": 0.0, "calls": 0, "cached_calls": 1})
            return hit.model_copy(update={"cached": True, "usage": usage})
        attempt = 0
        while True:
            try:
                resp = self._call(req)
                break
            except Exception as exc:
                if not is_transient(exc):
                    raise ModelError(f"{type(exc).__name__}: {exc}", transient=False) from exc
                if attempt >= self.settings.max_retries:
                    raise ModelError(f"gave up after {attempt + 1} tries: {type(exc).__name__}: {exc}",
                                     transient=True) from exc
                delay = self.settings.retry_base_s * (2**attempt) * (0.5 + random.random())
                time.sleep(delay)
                attempt += 1
        if self.use_cache and resp.finish_reason != "length":
            self.cache.put(key, resp)
        return resp
