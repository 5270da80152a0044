"""On-disk response cache keyed by the full request, so that re-running a finished run costs nothing."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from lmrbench.cachedir import cache_root
from lmrbench.models.base import ModelResponse


def default_cache_dir() -> Path:
    return cache_root() / "responses"


def request_key(request: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()


class ResponseCache:
    """One JSON file per request hash; writes are atomic (temp file + rename)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_cache_dir()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelResponse | None:
        path = self._path(key)
        if not path.is_file():
            return None
        try:
            return ModelResponse.model_validate_json(path.read_text(encoding="utf-8"))
        except ValueError:
            return None  # a corrupt entry is a miss

    def put(self, key: str, response: ModelResponse) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(response.model_dump_json(), encoding="utf-8")
        tmp.replace(path)
