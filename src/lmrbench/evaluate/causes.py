"""Tell environment failures from model failures in a test run's output. Pure functions over text.

Only runs that did not pass are classified. A run whose output shows the environment kept the test from measuring
anything (a module not installed that trusted evidence says the environment lacks, a hub download refused, no GPU,
a fixture that is missing or an LFS pointer) is an `error` with that cause; anything else stays `failed`.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass

from lmrbench.records import ErrorCause
from lmrbench.tasks.fixture_refs import FixtureRef, FixtureState

# The one pattern for a module that could not be imported (probe, pytest and legacy grading all use it). Text
# matching it is never evidence by itself: `missing_module` also needs the module in the trusted `lacking` set
# (evidence.py), since a candidate can raise or print this message itself.
MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")
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
FRAME = re.compile(r'^  File "([^"]+)", line \d+, in .*\n((?:    .*\n)?)', re.M)
UNPICKLE_POINTER = re.compile(r"invalid load key, 'v'|Failed to interpret file .* as a pickle")


@dataclass(frozen=True)
class Cause:
    """An environment failure: what, and a one-line reason naming the module, file or service."""

    cause: ErrorCause
    reason: str


def missing_module(texts: list[str], lacking: Container[str]) -> str | None:
    """The first module the texts say could not be imported that the trusted evidence says the environment lacks
    (its top-level name in `lacking`); None when there is none."""
    for text in texts:
        for match in MISSING_MODULE.finditer(text):
            if match.group(1).split(".")[0] in lacking:
                return match.group(1)
    return None


def _missing_module(text: str, lacking: Container[str]) -> Cause | None:
    name = missing_module([text], lacking)
    if name is None:
        return None
    return Cause(ErrorCause.MISSING_MODULE, f"environment: module '{name}' is not installed")


def _fixture(text: str, refs: list[FixtureRef]) -> Cause | None:
    for ref in refs:
        if ref.state is FixtureState.MISSING and ref.literal in text and "No such file" in text:
            return Cause(ErrorCause.MISSING_FIXTURE, f"environment: fixture '{ref.path}' does not exist")
    pointers = [r for r in refs if r.state is FixtureState.LFS_POINTER]
    if pointers and UNPICKLE_POINTER.search(text):
        return Cause(ErrorCause.LFS_POINTER, f"environment: fixture '{pointers[0].path}' is a Git-LFS pointer")
    return None


def _import_failure(text: str, workspace: str) -> Cause | None:
    """An installed package that fails while being imported (a version that does not fit the harness's torch,
    scipy or pyarrow): the last traceback ends inside site-packages, and the repository's own frames in it are
    import statements only, so no code of the prediction had run yet."""
    start = text.rfind("Traceback (most recent call last):")
    if start < 0:
        return None
    block = text[start:]
    frames = [(m.group(1), m.group(2).strip()) for m in FRAME.finditer(block)]
    if not frames or "/site-packages/" not in frames[-1][0]:
        return None
    own = [src for path, src in frames if path.startswith(workspace)]
    if not own or not all(src.startswith(("from ", "import ")) for src in own):
        return None
    last = [ln for ln in block.splitlines() if ln and not ln.startswith((" ", "Traceback"))]
    return Cause(ErrorCause.INCOMPATIBLE, f"environment: an installed package fails to import here "
                 f"({(last[-1] if last else 'see the log')[:160]})")


def classify_output(text: str, lacking: Container[str], refs: list[FixtureRef], workspace: str = "\0"
                    ) -> Cause | None:
    """The environment cause visible in a failed run's output, or None when it looks like a model failure.
    A missing module counts only when it is in `lacking` (trusted evidence, see evidence.py)."""
    found = _missing_module(text, lacking) or _fixture(text, refs)
    if found:
        return found
    net = NETWORK.search(text)
    if net:
        return Cause(ErrorCause.NETWORK, f"environment: network or model-hub access refused ({net.group(0)})")
    gpu = GPU.search(text)
    if gpu:
        return Cause(ErrorCause.GPU, f"environment: a GPU is required and absent ({gpu.group(0)})")
    return _import_failure(text, workspace)
