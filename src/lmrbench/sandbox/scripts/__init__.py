"""The scripts that run inside the sandbox, all in this one folder. Each is standalone (the sandbox cannot import
lmrbench): the harness copies it beside a workspace or starts it by path (`script`)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def script(name: str) -> Path:
    """The path of one in-sandbox script (`probe_runner.py`, `pytest_results_plugin.py`, `template_server.py`,
    `warm_server.py`)."""
    path = HERE / name
    if not path.is_file() or path.suffix != ".py" or path.name == "__init__.py":
        raise FileNotFoundError(f"no in-sandbox script {name!r} in {HERE}")
    return path
