"""Regenerate each task's input fixtures with matrix-product results jittered; compare with the committed ones.

Usage: python scripts/host_jitter/fixtures.py SEED ULPS [TASK...]. A task whose fixture DIFFERS under jitter makes
a discrete choice that the last bits of a matrix product decide (docs/host-independence.md)."""
import shutil
import sys
import tempfile
from pathlib import Path

from lmrbench.authoring.fixtures import SCRIPT, _differences
from lmrbench.evaluate.apply import apply_prediction, make_workspace
from lmrbench.evaluate.runner import EvalConfig, shared_pool
from lmrbench.sandbox import SandboxConfig
from lmrbench.solvers.builtin import reference_prediction
from lmrbench.tasks.loader import load_tasks

WRAP = Path(__file__).with_name("jitter_wrapper.py")


def run(task, seed: int, ulps: float) -> str:
    script = task.root / SCRIPT
    if not script.is_file():
        return "no script"
    target = task.tests_dir / "fixtures"
    with tempfile.TemporaryDirectory(prefix="jit-") as tmp:
        ws = make_workspace(task, Path(tmp) / "repo")
        for impl in task.implementations:
            apply_prediction(reference_prediction(task, impl), ws)
        shutil.copyfile(script, ws / "_make_fixtures.py")
        shutil.copyfile(WRAP, ws / "_jitter.py")
        log = Path(tmp) / "log.txt"
        res = shared_pool(EvalConfig(sandbox=SandboxConfig())).for_task(task).exec(
            [sys.executable, "-P", "_jitter.py", str(seed), str(ulps), "_make_fixtures.py", "_fixtures_out"], ws,
            task.timeout_s * 3, log, env={"PYTHONPATH": str(ws)})
        tail = log.read_text(errors="replace")
        jl = [ln for ln in tail.splitlines() if ln.startswith("jitter:")]
        if res.exit_code != 0:
            return f"FAILED exit {res.exit_code}: {tail[-800:]}"
        diffs, rounding = _differences(ws / "_fixtures_out", target)
        verdict = "DIFFERS " + "; ".join(diffs) if diffs else "same" + (f" (rounding: {rounding})" if rounding else "")
        return f"{verdict} {jl}"


def main() -> None:
    seed, ulps = int(sys.argv[1]), float(sys.argv[2])
    ids = sys.argv[3:]
    ts = load_tasks(None)
    for task in ts.tasks:
        if ids and task.task_id not in ids:
            continue
        print(task.task_id, run(task, seed, ulps), flush=True)


main()
