"""Probe/check grading: the data format, the comparison, and attacks on the verdict.

Each attack is a *wrong* implementation plus a trick that made (or would make) an in-process grader report it
as passing: patching the test framework, forging result files, exiting early, patching comparison functions,
reading expected values from the grader. Under probe grading the verdict is computed outside the sandbox from
emitted data alone, so each must fail."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from lmrbench.checks import CheckSet, close
from lmrbench.evaluate.probes import (
    CaseData,
    CaseSpec,
    compare_case,
    parse_probe_output,
    read_capped,
    read_probe_output,
)
from lmrbench.evaluate.runner import EvalConfig, evaluate_one
from lmrbench.records import Grading, Prediction, Status
from lmrbench.sandbox.scripts import probe_runner
from lmrbench.solvers.builtin import reference_prediction

RIGHT = "return [x + k * y for x, y in zip(a, b)]"
WRONG = "return [x - k * y for x, y in zip(a, b)]"


def _row(name: str, result: object, spec: dict | None = None) -> bytes:
    row = {"case": name, "status": "ok", "outputs": probe_runner.encode_outputs(result), "spec": spec or {}}
    return json.dumps(row).encode()


def _data(*rows: bytes, done: bool = True) -> bytes:
    lines = [b'{"format": "lmrbench-probe/1"}', *rows]
    if done:
        lines.append(b'{"done": true, "cases": 1}')
    return b"\n".join(lines) + b"\n"


def _one(result: object, spec: dict | None = None) -> CaseData:
    data = parse_probe_output(_data(_row("c", result, spec)))
    assert not data.problem, data.problem
    return data.cases["c"]


# ---------------------------------------------------------------- format and comparison (pure)


def test_arrays_round_trip_exactly_with_dtype():
    torch = pytest.importorskip("torch")
    t = torch.tensor([[1.5, -2.25], [math.pi, 1e-300]], dtype=torch.float64)
    c = _one({"t": t, "h": t.to(torch.bfloat16), "i": torch.arange(3), "b": t > 0})
    assert np.array_equal(c.outputs["t"], t.numpy())
    assert c.outputs["t#dtype"] == "float64" and c.outputs["h#dtype"] == "bfloat16"
    assert c.outputs["i"].dtype == np.int64 and c.outputs["b"].dtype == np.bool_


def test_scalars_containers_and_nonfinite_values():
    c = _one({"x": 0.1, "n": 2**70, "s": "hi", "none": None, "ok": True, "inf": -math.inf, "nan": math.nan,
              "seq": (1, [2.5]), "map": {"b": 1, "a": 2}})
    assert c.outputs["x"] == 0.1 and c.outputs["n"] == 2**70 and c.outputs["s"] == "hi"
    assert c.outputs["none"] is None and c.outputs["ok"] is True and c.outputs["inf"] == -math.inf
    assert math.isnan(c.outputs["nan"])
    assert c.outputs["seq"] == ("seq", 2) and c.outputs["seq.1.0"] == 2.5
    assert c.outputs["map"] == ("map", "a,b") and c.outputs["map.a"] == 2


def test_default_comparison_tolerance_shape_dtype_nan():
    want = _one({"v": np.array([1.0, np.nan, 3.0])}, {"rtol": 1e-6, "atol": 0})
    assert compare_case(_one({"v": np.array([1.0 + 1e-7, np.nan, 3.0])}), want) == ""
    assert "differ" in compare_case(_one({"v": np.array([1.0 + 1e-5, np.nan, 3.0])}), want)
    assert "differ" in compare_case(_one({"v": np.array([1.0, 2.0, 3.0])}), want)  # NaN where the reference has
    assert "shape" in compare_case(_one({"v": np.array([[1.0, np.nan, 3.0]])}), want)
    assert "dtype" in compare_case(_one({"v": np.array([1.0, np.nan, 3.0], dtype=np.float32)}), want)
    assert "missing" in compare_case(_one({"w": 1.0}), want)


def test_containers_must_have_the_same_length():
    want = _one({"r": (1.0, 2.0)})
    assert compare_case(_one({"r": (1.0, 2.0)}), want) == ""
    assert compare_case(_one({"r": (1.0, 2.0, 3.0)}), want) != ""


def test_raised_exceptions_are_compared_by_type():
    want = CaseData("c", "raised", raised=["ValueError", "Exception", "BaseException"])
    sub = CaseData("c", "raised", raised=["MyError", "ValueError", "Exception", "BaseException"])
    other = CaseData("c", "raised", raised=["TypeError", "Exception", "BaseException"])
    assert compare_case(sub, want) == ""
    assert "ValueError" in compare_case(other, want)
    assert "ValueError" in compare_case(_one({"v": 1}), want)
    assert "did not run" in compare_case(None, want)


def test_spec_overrides_per_output_pattern():
    spec = CaseSpec.model_validate({"rtol": 1e-9, "outputs": {"grad.*": {"rtol": 1e-3}, "skip": {"compare": "none"}}})
    assert spec.for_key("grad.0").rtol == 1e-3 and spec.for_key("loss").rtol == 1e-9
    assert spec.for_key("skip").compare == "none"


def test_checks_run_on_plain_data():
    checks = CheckSet([("hand*", lambda out, ref: close(out["v"], 2.0, rtol=1e-12))])
    checks.run("hand_1", {"v": np.float64(2.0)}, {})
    checks.run("other", {"v": 3.0}, {})  # pattern does not match
    with pytest.raises(AssertionError):
        checks.run("hand_2", {"v": 2.1}, {})


@pytest.mark.parametrize("line, why", [
    (b'{"case": "c", "status": "ok", "outputs": {"v": {"t": "array", "store": "|O", "shape": [1], "b64": ""}}}',
     "bad array header"),  # object (pickled) arrays are never decoded
    (b'{"case": "c", "status": "ok", "outputs": {"v": {"t": "array", "store": "<f8", "shape": [100000, 100000, '
     b'100000], "b64": ""}}}', "too large"),
    (b'{"case": "c", "status": "ok", "outputs": {"v": {"t": "array", "store": "<f8", "shape": [4], "b64": "AAAA"}}}',
     "does not match"),
    (b"[" * 100_000 + b"]" * 100_000, "malformed"),
    (b'{"case": "c", "status": "ok", "outputs": 7}', "not an object"),
])
def test_malformed_output_lines_make_the_run_unusable(line, why):
    data = parse_probe_output(_data(line, _row("d", {"v": 1.0})))
    assert (data.problem and why in data.problem) or (why == "malformed" and "malformed" in data.problem)


def test_a_line_cut_off_at_the_end_is_ignored():
    data = parse_probe_output(_data(_row("a", {"v": 1.0}), done=False) + b'{"case": "b", "sta')
    assert not data.problem and list(data.cases) == ["a"] and not data.done


def test_reading_back_never_follows_symlinks_or_reads_oversized_files(tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_bytes(_data(_row("c", {"v": 1.0})))
    link = tmp_path / "outputs.jsonl"
    link.symlink_to(secret)
    assert read_capped(secret) is not None
    assert read_capped(link) is None and read_probe_output(link).problem
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert read_capped(fifo) is None  # does not block on a FIFO
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2048)
    assert read_capped(big, limit=1024) is None


# ---------------------------------------------------------------- end to end on the probe-form toy task


def _fn(body: str) -> str:
    return "def add_scaled(a, b, k):\n" + "\n".join("    " + ln for ln in body.strip().splitlines()) + "\n"


def _eval(tasks, tmp_path, body: str, name: str = "m"):
    task = tasks.task("toy")
    pred = Prediction(instance_id="toy/1", model=name, functions={"calc/ops.py": {"add_scaled": _fn(body)}})
    return evaluate_one(task, task.implementation(1), pred, tmp_path / "work", tmp_path / "logs", EvalConfig())


def test_reference_passes_and_records_probe_grading(probe_tasks, tmp_path):
    task = probe_tasks.task("toy")
    ev = evaluate_one(task, task.implementation(1), reference_prediction(task, task.implementation(1)),
                      tmp_path / "work", tmp_path / "logs")
    assert ev.status is Status.PASSED, ev.reason
    assert (ev.tests_passed, ev.tests_total) == (4, 4)
    assert ev.grading is Grading.PROBE and not ev.forgeable
    assert Path(ev.outputs_path).is_file()


def test_wrong_code_fails_with_the_failing_cases_named(probe_tasks, tmp_path):
    ev = _eval(probe_tasks, tmp_path, WRONG)
    assert ev.status is Status.FAILED
    assert ev.tests_passed == 1  # only k = 0 agrees
    assert any(f.startswith("hand_checked") for f in ev.failures)


def test_the_expected_outputs_never_enter_the_sandbox(probe_tasks, tmp_path):
    # Look everywhere the candidate can for the reference's outputs or the trusted checks.
    body = f"""
import os
found = []
for top in ("/", os.getcwd(), os.path.dirname(os.getcwd())):
    for root, dirs, files in os.walk(top):
        if root.startswith(("/proc", "/sys", "/dev", "/usr", "/lib")):
            dirs[:] = []
            continue
        found += [os.path.join(root, f) for f in files if f in ("probe_ops.jsonl", "check_ops.py")]
print("FOUND", found)
if found:
    {RIGHT}
{WRONG}
"""
    assert (probe_tasks.task("toy").tests_dir / "expected" / "probe_ops.jsonl").is_file()
    ev = _eval(probe_tasks, tmp_path, body)
    assert ev.status is Status.FAILED, ev.reason
    assert "FOUND []" in Path(ev.log_path).read_text()


# Each trick is wrapped around WRONG.
TRICKS = {
    "forge_output_file": """
import os, json, sys
out = sys.argv[sys.argv.index("--out") + 1]
rows = [{"case": n, "status": "ok", "outputs": {}} for n in
        ("hand_checked", "scales[zero]", "scales[negative]", "scales[half]")]
open(out, "w").write("\\n".join(json.dumps(r) for r in rows) + '\\n{"done": true, "cases": 4}\\n')
os._exit(0)
""",
    "exit_zero_at_first_call": "import os; os._exit(0)",
    "system_exit_zero": "raise SystemExit(0)",
    "patch_the_runner_writer": """
import sys
probe = sys.modules["lmrbench_probe"]
probe._write = lambda fh, row: None
""",
    "patch_encoder_to_emit_nothing": """
import sys
sys.modules["lmrbench_probe"].encode_outputs = lambda result: {}
""",
    "patch_json_dumps": """
import json
json.dumps = lambda obj, **kw: '{"done": true, "cases": 0}'
""",
    "patch_comparisons_in_process": """
import math
math.isclose = lambda *a, **k: True
try:
    import numpy
    numpy.isclose = lambda *a, **k: True
    numpy.allclose = lambda *a, **k: True
except ImportError:
    pass
""",
    "replace_assertion_error": "import builtins; builtins.AssertionError = type('Nope', (Exception,), {})",
    "read_expected_from_caller_frames": """
import sys
frame, seen = sys._getframe(1), []
while frame is not None:
    seen += [v for v in frame.f_locals.values() if isinstance(v, (list, tuple))]
    frame = frame.f_back
""",
    "symlink_outputs_to_a_host_file": """
import os, sys
out = sys.argv[sys.argv.index("--out") + 1]
if os.path.exists(out):
    os.remove(out)
os.symlink("/etc/hostname", out)
os._exit(0)
""",
    "raise_the_expected_exception_everywhere": "raise ValueError('every case raises')",
}


def _tricked(trick: str, core: str) -> str:
    # The trick runs once per process (at the first call); then the core answer is returned.
    lines = ["global _TRICK_DONE", "if not globals().get('_TRICK_DONE'):", "    _TRICK_DONE = True"]
    lines += ["    " + ln for ln in TRICKS[trick].strip().splitlines()]
    return "\n".join([*lines, core])


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_grading_tricks_do_not_make_wrong_code_pass(probe_tasks, tmp_path, trick):
    ev = _eval(probe_tasks, tmp_path, _tricked(trick, WRONG), name=f"attack-{trick}")
    assert ev.status is not Status.PASSED, (trick, ev.reason)
    assert ev.tests_passed < ev.tests_total or ev.tests_total == 0


def test_exit_code_must_be_zero_even_when_every_case_is_right(probe_tasks, tmp_path):
    body = "import atexit, os\natexit.register(lambda: os._exit(3))\n" + RIGHT
    ev = _eval(probe_tasks, tmp_path, body)
    assert ev.status is Status.FAILED and ev.tests_passed == ev.tests_total == 4
    assert "exit code 3" in ev.reason


def test_a_module_only_the_candidate_imports_is_its_failure_not_the_environments(probe_tasks, tmp_path):
    # the task's own code never imports it: nothing but the candidate's word says the environment is to blame
    ev = _eval(probe_tasks, tmp_path, "import no_such_package_xyz\n" + RIGHT)
    assert ev.status is Status.FAILED and "no_such_package_xyz" in ev.reason


def test_check_patterns_take_brackets_literally():
    from lmrbench.checks import matches

    assert matches("matches_reference[3]", "matches_reference[*]")
    assert matches("scales[zero]", "scales[*]") and not matches("scales", "scales[*]")
    assert matches("hand_values", "hand_*") and not matches("hand_values", "hand")


def test_outputs_of_another_kind_fail_the_case_instead_of_stopping_the_grader():
    want = _one({"v": np.array([1.0, 2.0])})
    for got in ({"v": None}, {"v": "text"}, {"v": [1.0, 2.0]}, {"v": {"a": 1}}):
        why = compare_case(_one(got), want)
        assert why and "v" in why, got


def test_a_zero_dimensional_tensor_keeps_its_shape():
    torch = pytest.importorskip("torch")
    c = _one({"scalar": torch.tensor(2.5), "vector": torch.tensor([2.5])})
    assert c.outputs["scalar"].shape == () and c.outputs["vector"].shape == (1,)
    assert "shape" in compare_case(_one({"v": torch.tensor([2.5])}), _one({"v": torch.tensor(2.5)}))
