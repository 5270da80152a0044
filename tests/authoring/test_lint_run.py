"""`tasks lint --run`: the reference and the stub, run, on synthetic original-layout folders."""

from lmrbench.authoring.lint_run import run_checks
from lmrbench.tasks.loader import load_tasks
from tests.tasks.test_original import GOLDEN, make_original


def test_stub_that_passes_and_reference_that_fails_are_named(tmp_path):
    make_original(tmp_path, "01-Ok", {}, {})
    make_original(tmp_path, "02-Unmasked", {}, {"repo/losses.py": GOLDEN})  # the stub is the answer
    make_original(tmp_path, "03-Badref", {}, {"golden_files/losses_golden.py": GOLDEN.replace("+ 1", "+ 2")})
    ts = load_tasks(tmp_path)
    problems = run_checks([(t, i) for t in ts.tasks for i in t.implementations])
    assert sorted((p.task, p.index, p.kind) for p in problems) == [("02-unmasked", 1, "stub-passes"),
                                                                  ("03-badref", 1, "reference-fails")]
    assert "log_rule=False" in next(p for p in problems if p.kind == "reference-fails").detail
