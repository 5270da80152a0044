"""Tell environment failures from model failures in a test run's output. Pure functions over text.

Only runs that did not pass are classified. A run whose output shows the environment kept the test from measuring
anything (a module not installed, a hub download refused, no GPU, a fixture that is missing or an LFS pointer) is
an `error` with that cause; anything else stays `failed`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lmrbench.evaluate.models import ErrorCause
from lmrbench.tasks.fixture_refs import FixtureRef, FixtureState

MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
NETWORK = re.compile(
    r"huggingface\.co|Temporary failure in name resolution|Network is unreachable|Failed to establish a new "
    r"connection|LocalEntryNotFoundError|We couldn't connect to|OfflineModeIsEnabled|offline mode is enabled|"
    r"Cannot find the requested files in the (?:local|disk) cache|Name or service not known|"
    r"nodename nor servname|Resource \S+ not found\.\s+Please use the NLTK Downloader"
)
GPU = re.compile(
    r"Torch not compiled with CUDA enabled|Found no NVIDIA driver|No CUDA GPUs are available|"
    r"CUDA driver version is insufficient|Attempting to deserialize object on a CUDA device|"
    r"torch\.cuda\.is_available\(\) is False|CUDA_HOME environment variable is not set|"
    r"no kernel image is available|libcuda\.so"
)
UNPICKLE_POINTER = re.compile(r"invalid load key, 'v'|Failed to interpret file .* as a pickle")


@dataclass(frozen=True)
class Cause:
    """An environment failure: what, and a one-line reason naming the module, file or service."""

    cause: ErrorCause
    reason: str


def _missing_module(text: str, workspace_modules: set[str]) -> Cause | None:
    for match in MISSING_MODULE.finditer(text):
        name = match.group(1)
        if name.split(".")[0] not in workspace_modules:
            return Cause(ErrorCause.MISSING_MODULE, f"environment: module '{name}' is not installed")
    return None


def _fixture(text: str, refs: list[FixtureRef]) -> Cause | None:
    for ref in refs:
        if ref.state is FixtureState.MISSING and ref.literal in text and "No such file" in text:
            return Cause(ErrorCause.MISSING_FIXTURE, f"environment: fixture '{ref.path}' does not exist")
    pointers = [r for r in refs if r.state is FixtureState.LFS_POINTER]
    if pointers and UNPICKLE_POINTER.search(text):
        return Cause(ErrorCause.LFS_POINTER, f"environment: fixture '{pointers[0].path}' is a Git-LFS pointer")
    return None


def classify_output(text: str, workspace_modules: set[str], refs: list[FixtureRef]) -> Cause | None:
    """The environment cause visible in a failed run's output, or None when it looks like a model failure."""
    found = _missing_module(text, workspace_modules) or _fixture(text, refs)
    if found:
        return found
    net = NETWORK.search(text)
    if net:
        return Cause(ErrorCause.NETWORK, f"environment: network or model-hub access refused ({net.group(0)})")
    gpu = GPU.search(text)
    if gpu:
        return Cause(ErrorCause.GPU, f"environment: a GPU is required and absent ({gpu.group(0)})")
    return None
