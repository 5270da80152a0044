"""The harness's cache folder: `$LMRBENCH_CACHE`, else `~/.cache/lmrbench` (environments, responses, papers, the
upstream split's releases). One definition, read at call time so a test or a user can point it elsewhere."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """`$LMRBENCH_CACHE`, else `~/.cache/lmrbench`."""
    return Path(os.environ.get("LMRBENCH_CACHE", Path.home() / ".cache" / "lmrbench"))
