"""The real HTTP client path (litellm -> OpenAI protocol) against a scripted server on loopback."""

from __future__ import annotations

import pytest

from lmrbench.models import Message, ModelError, ModelSettings, ToolSpec
from lmrbench.models.cache import ResponseCache
from lmrbench.models.litellm_model import LiteLLMModel
from lmrbench.models.openai_stub_server import Reply, StubServer

HELLO = [Message(role="user", content="hello")]
TOOL = ToolSpec(name="bash", description="run", parameters={"type": "object", "properties": {
    "command": {"type": "string"}}})


def _model(server: StubServer, tmp_path, **settings) -> LiteLLMModel:
    fields = {"api_base": server.url, "retry_base_s": 0.01, "timeout_s": 5, "extra": {"api_key": "sk-test"}}
    s = ModelSettings(**(fields | settings))
    return LiteLLMModel("openai/stub-model", s, ResponseCache(tmp_path / "cache"))


def test_text_answer_tokens_and_request(tmp_path):
    with StubServer([Reply(content="hi there", prompt_tokens=20, completion_tokens=5)]) as srv:
        resp = _model(srv, tmp_path, temperature=0.3, seed=7, max_tokens=99).query(HELLO)
    assert resp.content == "hi there" and resp.finish_reason == "stop"
    assert (resp.usage.input_tokens, resp.usage.output_tokens, resp.usage.calls) == (20, 5, 1)
    sent = srv.requests[0]
    assert sent["temperature"] == 0.3 and sent["seed"] == 7 and sent["max_tokens"] == 99
    assert sent["messages"] == [{"role": "user", "content": "hello"}]


def test_tool_calls_and_malformed_arguments(tmp_path):
    script = [Reply(tool_calls=[("bash", '{"command": "ls"}'), ("bash", '{"command": "ls"')])]
    with StubServer(script) as srv:
        resp = _model(srv, tmp_path).query(HELLO, [TOOL])
    good, bad = resp.tool_calls
    assert good.arguments == {"command": "ls"} and good.parse_error is None
    assert bad.arguments == {} and bad.parse_error and "malformed JSON" in bad.parse_error
    assert srv.requests[0]["tools"][0]["function"]["name"] == "bash"


@pytest.mark.parametrize("status", [429, 500, 503])
def test_transient_errors_are_retried(tmp_path, status):
    with StubServer([Reply(status=status), Reply(status=status), Reply(content="ok")]) as srv:
        resp = _model(srv, tmp_path).query(HELLO)
    assert resp.content == "ok" and len(srv.requests) == 3


def test_retries_give_up_with_a_transient_error(tmp_path):
    with StubServer(default=Reply(status=500)) as srv:
        with pytest.raises(ModelError) as exc:
            _model(srv, tmp_path, max_retries=2).query(HELLO)
    assert exc.value.transient and len(srv.requests) == 3


def test_client_errors_are_not_retried(tmp_path):
    with StubServer(default=Reply(status=400)) as srv:
        with pytest.raises(ModelError) as exc:
            _model(srv, tmp_path).query(HELLO)
    assert not exc.value.transient and len(srv.requests) == 1


def test_slow_response_times_out_then_retries(tmp_path):
    with StubServer([Reply(content="late", delay_s=3), Reply(content="fast")]) as srv:
        resp = _model(srv, tmp_path, timeout_s=1).query(HELLO)
    assert resp.content == "fast" and len(srv.requests) == 2


def test_cache_makes_a_rerun_free_but_not_truncated_answers(tmp_path):
    with StubServer([Reply(content="cached answer")]) as srv:
        model = _model(srv, tmp_path)
        first, second = model.query(HELLO), model.query(HELLO)
    assert len(srv.requests) == 1 and second.cached and second.content == first.content
    assert second.usage.cached_calls == 1 and second.usage.calls == 0 and second.usage.cost_usd == 0
    with StubServer([Reply(content="cut off", finish_reason="length")]) as srv:
        model = _model(srv, tmp_path)
        a = model.query([Message(role="user", content="other")])
        model.query([Message(role="user", content="other")])
    assert a.finish_reason == "length" and len(srv.requests) == 2


@pytest.mark.parametrize("provider", ["openai", "anthropic", "openrouter"])
def test_the_keys_known_without_litellm_are_litellms_own(provider, monkeypatch):
    # registry.PROVIDER_KEYS answers a credentials check without importing litellm; it must say what litellm says
    from lmrbench.models.litellm_model import missing_credentials
    from lmrbench.models.registry import PROVIDER_KEYS, MissingCredentials, check_credentials

    key = PROVIDER_KEYS[provider]
    monkeypatch.delenv(key, raising=False)
    assert missing_credentials(f"{provider}/some-model") == [key]
    with pytest.raises(MissingCredentials, match=key):
        check_credentials([f"{provider}/some-model"])
    monkeypatch.setenv(key, "sk-test")
    assert missing_credentials(f"{provider}/some-model") == []
    check_credentials([f"{provider}/some-model"])
