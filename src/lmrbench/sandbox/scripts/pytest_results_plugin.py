"""A tiny pytest plugin, copied next to the hidden tests, that writes structured results as JSON.

Standalone on purpose: the sandbox cannot import lmrbench. The results carry a nonce that the harness put in
a file which the plugin reads and deletes before any test module (and so any candidate code) is imported.
"""

import json
import os

_state: dict = {"nonce": None, "out": None, "tests": {}, "collect_errors": []}


def pytest_configure(config):
    nonce_file = os.environ.get("LMRBENCH_NONCE_FILE")
    _state["out"] = os.environ.get("LMRBENCH_RESULTS")
    if nonce_file and os.path.exists(nonce_file):
        with open(nonce_file) as fh:
            _state["nonce"] = fh.read().strip()
        os.remove(nonce_file)
    os.environ.pop("LMRBENCH_NONCE_FILE", None)


def pytest_collectreport(report):
    if report.failed:
        _state["collect_errors"].append({"nodeid": report.nodeid, "longrepr": str(report.longrepr)[-4000:]})


def pytest_runtest_logreport(report):
    entry = _state["tests"].setdefault(report.nodeid, {"outcome": "passed", "duration": 0.0})
    entry["duration"] += report.duration
    if report.failed:
        entry["outcome"] = "failed" if report.when == "call" else "error"
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"


def pytest_sessionfinish(session, exitstatus):
    if not _state["out"]:
        return
    payload = {
        "nonce": _state["nonce"],
        "exitstatus": int(exitstatus),
        "tests": [{"nodeid": k, **v} for k, v in _state["tests"].items()],
        "collect_errors": _state["collect_errors"],
    }
    with open(_state["out"], "w") as fh:
        json.dump(payload, fh)
