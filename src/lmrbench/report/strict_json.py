"""Strict JSON for every `--json` output and report file: NaN and infinities become null."""

from __future__ import annotations

import json
import math


def finite(data: object) -> object:
    """The same data with every non-finite float replaced by None (JSON has no NaN or Infinity)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    return data


def dumps(data: object, indent: int | None = 2) -> str:
    """JSON text that any strict parser accepts; objects JSON lacks (paths, dates) are written as strings."""
    return json.dumps(finite(data), indent=indent, allow_nan=False, default=str)
