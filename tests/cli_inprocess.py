"""The CLI run inside the test process, through typer's runner: the same command line, working folder and
environment as `python -m lmrbench` in a subprocess, without a new interpreter importing lmrbench (about 0.9
CPU-seconds) for each call, and with this process's sandbox templates already warm. tests/test_cli_e2e.py and the
provider and budget tests still run the real `python -m lmrbench` in a subprocess."""

from __future__ import annotations

import os
import subprocess
import traceback
from collections.abc import Mapping
from pathlib import Path

from typer.testing import CliRunner

from lmrbench.cli import app


def run_cli(*args: str, cwd: Path, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`lmrbench ARGS` in `cwd` with `env` (default: this process's), as a finished process: exit code, stdout and
    stderr apart; an exception the CLI let escape is exit code 1 with its traceback on stderr, as in a subprocess."""
    saved_env, saved_cwd = dict(os.environ), Path.cwd()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        os.chdir(cwd)
        result = CliRunner().invoke(app, list(args), prog_name="lmrbench")
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    stderr = result.stderr
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
        code = code or 1
    return subprocess.CompletedProcess(["lmrbench", *args], code, result.stdout, stderr)
