"""Model names resolve here: `fake` (scripted) or anything litellm knows."""

from __future__ import annotations

from pathlib import Path

from lmrbench.models.base import Model, ModelSettings
from lmrbench.models.cache import ResponseCache


def get_model(name: str, settings: ModelSettings | None = None, fake_script: Path | None = None,
              cache_dir: Path | None = None, use_cache: bool = True) -> Model:
    """`fake` needs `fake_script` (JSONL); any other name goes to litellm (e.g. `openai/gpt-4o-mini`)."""
    if name == "fake" or name.startswith("fake/"):
        from lmrbench.models.fake import FakeModel, load_script

        if fake_script is None:
            raise ValueError("the fake model needs a script: --fake-script FILE (JSONL of replies)")
        return FakeModel(load_script(fake_script), name=name, settings=settings)
    from lmrbench.models.litellm_model import LiteLLMModel

    return LiteLLMModel(name, settings, ResponseCache(cache_dir) if cache_dir else None, use_cache)
