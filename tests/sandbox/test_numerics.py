"""One set of CPU kernels in every sandbox: the environment that pins them, and that it reaches torch both in a
cold sandbox and in a template's child (where torch was imported before the evaluation started)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lmrbench.sandbox import LocalSandbox, SandboxConfig
from lmrbench.sandbox.numerics import OTHER_BLAS_ENV, kernels_env, numerics_env, pinned_numerics_env
from lmrbench.sandbox.template import TemplateSandbox

AVX512_HOST = "processor : 0\nflags : fpu sse2 avx fma avx2 avx512f avx512bw\n"
AVX2_HOST = "processor : 0\nflags : fpu sse2 avx fma avx2\n"
OLD_HOST = "processor : 0\nflags : fpu sse2 sse4_2 avx\n"
PINNED = pinned_numerics_env()
needs_pinning = pytest.mark.skipif(not PINNED, reason="this host has no AVX2 kernels to pin")


def test_avx2_and_avx512_hosts_get_the_same_kernels():
    assert numerics_env("x86_64", AVX512_HOST) == numerics_env("x86_64", AVX2_HOST)
    assert numerics_env("x86_64", AVX2_HOST)["ATEN_CPU_CAPABILITY"] == "avx2"
    assert numerics_env("x86_64", AVX2_HOST)["NPY_DISABLE_CPU_FEATURES"] == "X86_V4"


def test_hosts_without_avx2_and_other_architectures_keep_their_own_kernels():
    assert numerics_env("x86_64", OLD_HOST) == {}
    assert numerics_env("aarch64", AVX512_HOST) == {}
    assert numerics_env("x86_64", "") == {}


def test_kernel_choices():
    assert kernels_env("host") == {}
    assert kernels_env("pinned") == PINNED
    if PINNED:
        assert kernels_env("other-blas") == PINNED | OTHER_BLAS_ENV


REPORT = ("import os, torch; print('CAP', torch.backends.cpu.get_cpu_capability()); "
          "print('ENV', os.environ.get('ATEN_CPU_CAPABILITY'), os.environ.get('NPY_DISABLE_CPU_FEATURES'))")


@needs_pinning
@pytest.mark.parametrize("path", ["cold", "template"])
def test_pinned_kernels_reach_torch_in_the_sandbox(tmp_path: Path, path: str):
    ws = tmp_path / "ws"
    ws.mkdir()
    log = tmp_path / "log.txt"
    (ws / "report.py").write_text(REPORT)
    sandbox = TemplateSandbox(SandboxConfig()) if path == "template" else LocalSandbox(SandboxConfig())
    res = sandbox.exec([sys.executable, "-P", "report.py"], ws, 60, log)
    text = log.read_text()
    assert res.exit_code == 0, text
    if res.path != path:
        pytest.skip(f"no template path here: {sandbox.why_not()}")  # type: ignore[union-attr]
    assert "CAP AVX2" in text and "ENV avx2 X86_V4" in text


@needs_pinning
def test_host_kernels_leave_the_libraries_alone(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    log = tmp_path / "log.txt"
    res = LocalSandbox(SandboxConfig(kernels="host")).exec([sys.executable, "-c", REPORT], ws, 60, log)
    assert res.exit_code == 0 and "ENV None None" in log.read_text()
