"""Sandboxes: run a command in a workspace and return a typed result."""

from lmrbench.sandbox.base import ExecResult, Isolation, Sandbox, SandboxConfig
from lmrbench.sandbox.local import LocalSandbox

__all__ = ["ExecResult", "Isolation", "LocalSandbox", "Sandbox", "SandboxConfig"]
