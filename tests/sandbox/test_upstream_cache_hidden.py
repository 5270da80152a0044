"""The upstream split's golden trees (the references, in `$LMRBENCH_CACHE/upstream`) never show in the sandbox,
even when the cache sits inside a folder the sandbox mounts."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from lmrbench.sandbox import LocalSandbox

BWRAP = LocalSandbox().isolation().filesystem == "bwrap"


def _read_both(secret: Path, visible: Path) -> str:
    return f"""
for p in ({str(secret)!r}, {str(visible)!r}):
    try:
        print("GOT", p, open(p).read())
    except OSError as exc:
        print("DENIED", p, type(exc).__name__)
"""


@pytest.mark.skipif(not BWRAP, reason="bubblewrap is not usable here")
def test_cache_inside_a_mounted_folder_is_covered(tmp_path, monkeypatch):
    mounted = tmp_path / "mounted"
    secret = mounted / "cache" / "upstream" / "pkg-1.0-abc" / "golden" / "pkg" / "core.py"
    secret.parent.mkdir(parents=True)
    secret.write_text("def target(): return 'the reference'\n")
    visible = mounted / "other.txt"
    visible.write_text("fine")
    monkeypatch.setenv("LMRBENCH_CACHE", str(mounted / "cache"))
    ws = tmp_path / "ws"
    ws.mkdir()
    log = tmp_path / f"log-{uuid.uuid4().hex[:6]}.txt"
    LocalSandbox().exec([sys.executable, "-c", _read_both(secret, visible)], ws, 30, log, readonly=[mounted])
    text = log.read_text()
    assert f"GOT {visible} fine" in text  # the folder is mounted ...
    assert f"DENIED {secret}" in text and "the reference" not in text, text  # ... but not the cache's golden tree


@pytest.mark.skipif(not BWRAP, reason="bubblewrap is not usable here")
def test_cache_outside_the_allow_list_is_not_there(tmp_path, monkeypatch):
    secret = tmp_path / "cache" / "upstream" / "pkg-1.0-abc" / "golden" / "pkg" / "core.py"
    secret.parent.mkdir(parents=True)
    secret.write_text("def target(): return 'the reference'\n")
    monkeypatch.setenv("LMRBENCH_CACHE", str(tmp_path / "cache"))
    ws = tmp_path / "ws"
    ws.mkdir()
    log = tmp_path / "log.txt"
    LocalSandbox().exec([sys.executable, "-c", _read_both(secret, ws / "x")], ws, 30, log)
    assert f"DENIED {secret} FileNotFoundError" in log.read_text()
