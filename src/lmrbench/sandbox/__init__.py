"""Sandboxes: run a command in a workspace and return a typed result."""

from lmrbench.sandbox.base import (
    ExecResult,
    Isolation,
    IsolationError,
    IsolationLevel,
    Kernels,
    Sandbox,
    SandboxConfig,
)
from lmrbench.sandbox.local import LocalSandbox

__all__ = [
    "ExecResult", "Isolation", "IsolationError", "IsolationLevel", "Kernels", "LocalSandbox", "Sandbox",
    "SandboxConfig",
]
