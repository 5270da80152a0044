"""Model names resolve here: `fake` (scripted) or anything litellm knows."""

from __future__ import annotations

import os
from pathlib import Path

from lmrbench.models.base import Model, ModelSettings
from lmrbench.models.cache import ResponseCache

BUILTIN_NAMES = ("reference", "stub")  # the built-in solvers: no provider behind them
# The key each common provider prefix needs, known without importing litellm (about 4 CPU-seconds), so that a run
# missing its key stops at once. litellm gives the same answer for each (tests/models/test_litellm_http.py checks
# it); any other provider is asked of litellm itself.
PROVIDER_KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "openrouter": "OPENROUTER_API_KEY"}


class MissingCredentials(ValueError):
    """A provider's key is not set: found before any request is made."""


def check_credentials(names: list[str], settings: ModelSettings | None = None) -> None:
    """Raise MissingCredentials naming every environment variable the providers of `names` need and lack.
    The built-in models, the fake model and a local server (`api_base`) need none."""
    missing: dict[str, list[str]] = {}
    for name in names:
        if name in BUILTIN_NAMES or name == "fake" or name.startswith("fake/"):
            continue
        if keys := _missing_keys(name, settings):
            missing[name] = keys
    if missing:
        said = "; ".join(f"{name} needs {' and '.join(keys)}" for name, keys in missing.items())
        raise MissingCredentials(f"missing credentials: {said}. Set them in the environment (or give --api-base "
                                 "for a local OpenAI-compatible server); nothing was sent.")


def _missing_keys(name: str, settings: ModelSettings | None) -> list[str]:
    settings = settings or ModelSettings()
    if settings.api_base or settings.extra.get("api_key"):
        return []
    key = PROVIDER_KEYS.get(name.split("/", 1)[0]) if "/" in name else None
    if key is not None:
        return [] if os.environ.get(key) else [key]
    from lmrbench.models.litellm_model import missing_credentials

    return missing_credentials(name)


def get_model(name: str, settings: ModelSettings | None = None, fake_script: Path | None = None,
              cache_dir: Path | None = None, use_cache: bool = True) -> Model:
    """`fake` needs `fake_script` (JSONL); any other name goes to litellm (e.g. `openai/gpt-4o-mini`)."""
    if name == "fake" or name.startswith("fake/"):
        from lmrbench.models.fake import FakeModel, load_script

        if fake_script is None:
            raise ValueError("the fake model needs a script: --fake-script FILE (JSONL of replies)")
        return FakeModel(load_script(fake_script), name=name, settings=settings)
    from lmrbench.models.litellm_model import LiteLLMModel

    check_credentials([name], settings)
    return LiteLLMModel(name, settings, ResponseCache(cache_dir) if cache_dir else None, use_cache)
