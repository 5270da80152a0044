from pathlib import Path

from lmrbench.evaluate.grading import grade, legacy_verdict
from lmrbench.records import Status

NONCE = "n0"


def _results(outcomes, exitstatus=0, nonce=NONCE, errors=()):
    tests = [{"nodeid": f"t{i}", "outcome": o, "duration": 0.5} for i, o in enumerate(outcomes)]
    return {"nonce": nonce, "exitstatus": exitstatus, "tests": tests, "collect_errors": list(errors)}


def test_all_passed_with_exit_zero_passes():
    g = grade(_results(["passed", "passed"]), NONCE, 0, False, set())
    assert (g.status, g.passed, g.total, g.tests_duration_s) == (Status.PASSED, 2, 2, 1.0)


def test_exit_code_is_required_too():
    assert grade(_results(["passed"]), NONCE, 1, False, set()).status is Status.FAILED
    assert grade(_results(["passed"], exitstatus=1), NONCE, 0, False, set()).status is Status.FAILED


def test_forged_or_missing_results_fail():
    assert grade(_results(["passed"], nonce="forged"), NONCE, 0, False, set()).status is Status.FAILED
    assert grade(None, NONCE, 0, False, set()).reason.startswith("no structured results")


def test_no_tests_and_skips_do_not_pass():
    assert grade(_results([]), NONCE, 0, False, set()).status is Status.FAILED
    g = grade(_results(["passed", "skipped"]), NONCE, 0, False, set())
    assert (g.status, g.passed, g.total) == (Status.FAILED, 1, 2)


def test_missing_third_party_module_is_an_environment_error_only_with_evidence():
    err = [{"nodeid": "t", "longrepr": "ModuleNotFoundError: No module named 'transformers'"}]
    assert grade(_results([], 2, errors=err), NONCE, 2, False, {"transformers"}).status is Status.ERROR
    assert grade(_results([], 2, errors=err), NONCE, 2, False, set()).status is Status.FAILED  # message alone
    err = [{"nodeid": "t", "longrepr": "ModuleNotFoundError: No module named 'calc.extra'"}]
    assert grade(_results([], 2, errors=err), NONCE, 2, False, {"transformers"}).status is Status.FAILED


def test_timeout_wins():
    assert grade(_results(["passed"]), NONCE, None, True, set()).status is Status.TIMEOUT


def test_legacy_rule_and_strict(tmp_path: Path):
    log = tmp_path / "unit_test_1.log"
    assert not legacy_verdict(log, 0).log_found
    log.write_text("Test Passed\n")
    assert legacy_verdict(log, 0).strict and legacy_verdict(log, 0).log_rule
    spoof = legacy_verdict(log, 1)
    assert spoof.log_rule and not spoof.strict
    log.write_text("Test Passed\nTest Failed\n")
    assert not legacy_verdict(log, 0).log_rule
    log.write_text("test passed\n")  # the original grader is case-sensitive
    assert not legacy_verdict(log, 0).log_rule
