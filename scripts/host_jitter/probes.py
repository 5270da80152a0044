"""Run each probe file with the reference under a wrapper (jitter of matrix products, or the margin meter), then
grade the run against the stored expected outputs. Usage: probe_check.py MODE(jitter:SEED:ULPS|meter) TASK...

The probe runner is wrapped in place (renamed, then run with runpy under the wrapper), so nothing in the harness
changes; the verdict comes from the stored expected outputs, as in `lmrbench tasks fixtures --check`."""
import sys
import tempfile
from pathlib import Path

from lmrbench.evaluate.grading import grade_probe_data
from lmrbench.evaluate.probes import parse_probe_output, read_capped
from lmrbench.evaluate.runner import EvalConfig, grading_of, prepare, run_cold, shared_pool
from lmrbench.records import Grading
from lmrbench.sandbox import SandboxConfig
from lmrbench.solvers.builtin import reference_prediction
from lmrbench.tasks.loader import load_tasks

HERE = Path(__file__).parent
WRAP = {"jitter": (HERE / "jitter_wrapper.py").read_text(), "meter": (HERE / "margins.py").read_text()}


def wrap(probe: Path, mode: str) -> None:
    orig = probe.with_name("_orig_probe.py")
    probe.rename(orig)
    kind, *rest = mode.split(":")
    src = WRAP[kind].replace("sys.argv = sys.argv[3:]", "sys.argv = [sys.argv[0]] + sys.argv[1:]")
    src = src.replace("sys.argv = sys.argv[1:]", "sys.argv = [sys.argv[0]] + sys.argv[1:]")
    seed, ulps = (rest[0], rest[1]) if rest else ("0", "0")
    src = src.replace("SEED, ULPS = int(sys.argv[1]), float(sys.argv[2])", f"SEED, ULPS = {seed}, {ulps}")
    src = src.replace("runpy.run_path(sys.argv[0]", f"runpy.run_path({str(orig)!r}")
    probe.write_text(src)


def main() -> None:
    mode, ids = sys.argv[1], sys.argv[2:]
    config = EvalConfig(sandbox=SandboxConfig())
    for task in load_tasks(None).tasks:
        if task.task_id not in ids:
            continue
        for impl in task.implementations:
            if grading_of(task, impl) is not Grading.PROBE:
                continue
            with tempfile.TemporaryDirectory(prefix="pc-") as tmp:
                p = prepare(task, impl, reference_prediction(task, impl), Path(tmp) / "item", Path(tmp) / "log.txt",
                            "expected", config)
                wrap(p.hidden / "lmrbench_probe.py", mode)
                res = run_cold(p, shared_pool(config).for_task(task))
                data = read_capped(p.out / "outputs.jsonl")
                log = p.log.read_text(errors="replace") if p.log.is_file() else ""
                lines = [ln for ln in log.splitlines() if ln.startswith(("margin", "jitter"))]
                if res.exit_code != 0 or data is None:
                    print(impl.instance_id, "RUN FAILED", res.exit_code, log[-600:], flush=True)
                    continue
                g = grade_probe_data(task, impl.unit_test_file, parse_probe_output(data), 0, False, set())
                print(impl.instance_id, g.status.value, (g.reason or "")[:300], flush=True)
                for failure in g.failures:
                    print("    failed:", failure[:240], flush=True)
                for ln in lines:
                    print("   ", ln, flush=True)


main()
