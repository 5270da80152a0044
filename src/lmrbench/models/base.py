"""The model interface and the typed messages that cross it."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field


class ToolCall(BaseModel):
    """A tool call requested by the model."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict, description="Parsed JSON arguments.")
    raw_arguments: str = Field(default="", description="As the provider sent them (may be malformed).")
    parse_error: str | None = Field(default=None, description="Why raw_arguments did not parse, if so.")


class ToolSpec(BaseModel):
    """A tool offered to the model, in JSON-schema terms."""

    name: str
    description: str
    parameters: dict[str, Any]


class Message(BaseModel):
    """One chat message."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None


class Usage(BaseModel):
    """Tokens, cost and calls; adds up across calls, items and runs."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    cached_calls: int = Field(default=0, description="Calls answered from the on-disk cache (cost nothing).")

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=round(self.cost_usd + other.cost_usd, 8),
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
        )


class ModelResponse(BaseModel):
    """What one query returns."""

    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str = Field(default="stop", description="'stop', 'length' (truncated), 'tool_calls', ...")
    usage: Usage = Field(default_factory=Usage)
    cached: bool = False


class ModelSettings(BaseModel):
    """Generation settings; recorded with every run."""

    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    max_tokens: int = Field(default=4096, ge=1, description="Most tokens in one answer.")
    seed: int | None = Field(default=None, description="Sent where the provider supports it.")
    timeout_s: float = Field(default=300.0, gt=0, description="Per-request timeout.")
    max_retries: int = Field(default=5, ge=0, description="Retries of transient failures (429, timeouts, 5xx).")
    retry_base_s: float = Field(default=2.0, ge=0, description="First backoff; doubles each retry, with jitter.")
    api_base: str | None = Field(default=None, description="OpenAI-compatible server URL (vLLM, Ollama, ...).")
    extra: dict[str, Any] = Field(default_factory=dict, description="Extra provider arguments, passed through.")


class ModelError(RuntimeError):
    """A failed query. `transient` errors were retried until the budget ran out."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class Model(Protocol):
    """Answers a list of messages, optionally with tools."""

    name: str
    settings: ModelSettings

    def query(self, messages: list[Message], tools: list[ToolSpec] | None = None) -> ModelResponse:
        """One completion. Raises ModelError."""
        ...
