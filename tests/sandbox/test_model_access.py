"""--hf-cache: a pre-downloaded Hugging Face cache, read-only and offline inside the sandbox."""

import resource
import sys

import pytest

from lmrbench.sandbox import LocalSandbox, SandboxConfig


def test_hf_cache_is_visible_read_only_and_offline(tmp_path):
    cache = tmp_path / "home" / ".cache" / "huggingface"
    (cache / "hub").mkdir(parents=True)
    (cache / "hub" / "weights.txt").write_text("pretrained")
    ws = tmp_path / "ws"
    ws.mkdir()
    box = LocalSandbox(SandboxConfig(hf_cache=cache))
    script = ("import os\nprint(os.environ['HF_HUB_OFFLINE'], os.environ['HF_HUB_CACHE'])\n"
              "print(open(os.path.join(os.environ['HF_HUB_CACHE'], 'weights.txt')).read())\n"
              "try:\n    open(os.path.join(os.environ['HF_HUB_CACHE'], 'new.txt'), 'w')\n    print('WRITABLE')\n"
              "except OSError:\n    print('READ-ONLY')\n")
    (ws / "probe.py").write_text(script)
    res = box.exec([sys.executable, "probe.py"], ws, 60, tmp_path / "log.txt")
    out = (tmp_path / "log.txt").read_text()
    assert res.exit_code == 0, out
    assert f"1 {cache / 'hub'}" in out and "pretrained" in out
    if box.isolation().filesystem != "bwrap":
        pytest.skip("without bubblewrap the cache is not mounted read-only")
    assert "READ-ONLY" in out


def test_gpus_lift_the_address_space_limit(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "probe.py").write_text("import resource\nprint('AS', resource.getrlimit(resource.RLIMIT_AS)[0])\n")
    inherited = resource.getrlimit(resource.RLIMIT_AS)[0]  # what the sandbox leaves as it is with gpus
    for gpus, expect in ((False, 512 * 1024 * 1024), (True, inherited)):
        box = LocalSandbox(SandboxConfig(gpus=gpus, memory_mb=512))
        box.exec([sys.executable, "probe.py"], ws, 60, tmp_path / "log.txt")
        assert f"AS {expect}" in (tmp_path / "log.txt").read_text()

