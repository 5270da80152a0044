"""The one sandbox factory: the sandboxes of a run (a template backend per set of preloaded libraries, or the cold
backend), the libraries a template or a warm batch may preload, and the check that the isolation asked for can be
had here. Every command, the agent solver's included, gets its sandboxes from here, for one SandboxConfig."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Literal, Protocol

from lmrbench.sandbox.base import Isolation, Sandbox, SandboxConfig
from lmrbench.sandbox.local import LocalSandbox
from lmrbench.sandbox.template import TemplateSandbox

ExecPath = Literal["template", "cold"]

PRELOADABLE = ("numpy", "scipy", "torch", "pandas")
"""What a template process may import before it forks (only those a task declares)."""

WARM_PRELOAD = ("numpy", "scipy", "torch", "torch._dynamo", "pandas")
"""What a warm batch may import once (torch._dynamo: what a torch optimizer imports on first use)."""


def template_preload(requirements: Iterable[str]) -> tuple[str, ...]:
    """The preloadable libraries among a task's declared requirements (not torch for a task that does not use it)."""
    wanted = set(requirements)
    return tuple(p for p in PRELOADABLE if p in wanted)


def warm_preload(requirements: Iterable[str], declared: Iterable[str] = ()) -> list[str]:
    """What a warm batch imports once: the preloadable libraries the requirements name (torch brings its
    _dynamo), then the modules the tasks declare themselves (upstream split)."""
    wanted = set(requirements)
    if "torch" in wanted:
        wanted.add("torch._dynamo")
    return [name for name in WARM_PRELOAD if name in wanted] + list(dict.fromkeys(declared))


def check_isolation(config: SandboxConfig) -> Isolation:
    """The isolation this machine gives for `config`; raises IsolationError (or RuntimeError) before any work
    when isolation 'full' cannot be had."""
    return LocalSandbox(config).isolation()


class HasRequirements(Protocol):
    requirements: list[str]


class RunsIn(Protocol):
    """A configuration that says which sandbox and which path (an evaluation's EvalConfig)."""

    sandbox: SandboxConfig
    path: ExecPath


class SandboxPool:
    """The sandboxes of one run: a template backend per set of preloaded libraries, or the cold backend."""

    def __init__(self, config: SandboxConfig | RunsIn, path: ExecPath | None = None) -> None:
        if isinstance(config, SandboxConfig):
            self.sandbox, self.path = config, path or "template"
        else:
            self.sandbox, self.path = config.sandbox, path or config.path
        self.cold = LocalSandbox(self.sandbox)
        self._templates: dict[tuple[str, ...], Sandbox] = {}
        self._lock = threading.Lock()

    def for_task(self, task: HasRequirements) -> Sandbox:
        """Only the task's declared requirements are preloaded (not torch for a task that does not use it)."""
        if self.path == "cold":
            return self.cold
        preload = template_preload(task.requirements)
        with self._lock:
            if preload not in self._templates:
                self._templates[preload] = TemplateSandbox(self.sandbox, preload)
            return self._templates[preload]


_POOLS: dict[str, SandboxPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(config: SandboxConfig | RunsIn, path: ExecPath | None = None) -> SandboxPool:
    """One pool per configuration for the whole process, so that its templates are started once."""
    sandbox = config if isinstance(config, SandboxConfig) else config.sandbox
    chosen: ExecPath = path or ("template" if isinstance(config, SandboxConfig) else config.path)
    key = f"{chosen}|{sandbox.model_dump_json()}"
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = SandboxPool(sandbox, chosen)
        return _POOLS[key]
