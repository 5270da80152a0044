"""The upstream split end to end, through the real CLI and with no network: a fake release built in the test,
fetched from a local folder, masked, listed, given expected outputs from its unmasked code, linted and
validated (the reference passes, the stub fails, each declared wrong edit fails)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_inprocess import run_cli
from tests.upstream_fake import WRONG, build_dep_wheel, build_wheel, write_recipe


def cli(*args: str, cache: Path, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "LMRBENCH_FIND_LINKS"} | {"LMRBENCH_CACHE": str(cache)}
    env |= extra
    return run_cli(*args, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def fetched(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("upstream")
    wheel = build_wheel(tmp / "dist")
    tasks = tmp / "tasks"
    write_recipe(tasks, wheel)
    cache = tmp / "cache"
    res = cli("tasks", "fetch", "--tasks", str(tasks), "--find-links", str(tmp / "dist"), cache=cache, cwd=tmp)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "fake-smoother: lmrfake==0.1.0" in res.stdout and "sha256 ok" in res.stdout
    return {"tmp": tmp, "tasks": tasks, "cache": cache, "dist": tmp / "dist"}


def _pkg(cache: Path) -> Path:
    (pkg,) = (cache / "upstream").iterdir()
    return pkg


def test_fetch_masks_targets_and_removes_tests_and_copies(fetched):
    pkg = _pkg(fetched["cache"])
    assert pkg.name.startswith("lmrfake-0.1.0-")
    masked, golden = pkg / "masked" / "fake-smoother" / "lmrfake", pkg / "golden" / "lmrfake"
    ops = (masked / "ops.py").read_text()
    assert "raise NotImplementedError" in ops and "out.append(m)" not in ops
    assert '"""Exponential running mean: m_0 = v_0' in ops  # the upstream's docstring stays
    assert "return [scale * (x - y)" in ops  # a non-target is untouched
    model = (masked / "model.py").read_text()
    assert "running_mean(values, self.decay)" not in model and "self.decay = decay" in model
    assert not (masked / "tests").exists() and not (masked / "legacy.py").exists()
    # the golden is the release as shipped
    assert "(1 - decay) * v" in (golden / "ops.py").read_text() and (golden / "legacy.py").is_file()


def test_fetch_again_is_cached(fetched):
    ops = _pkg(fetched["cache"]) / "masked" / "fake-smoother" / "lmrfake" / "ops.py"
    before = ops.stat().st_mtime_ns
    # no --find-links: the file is in the cache already, so nothing is downloaded
    res = cli("tasks", "fetch", "--tasks", str(fetched["tasks"]), cache=fetched["cache"], cwd=fetched["tmp"])
    assert res.returncode == 0, res.stderr[-2000:]
    assert ops.stat().st_mtime_ns == before


def test_list_rows(fetched):
    res = cli("tasks", "list", "--tasks", str(fetched["tasks"]), "--split", "upstream", "--json",
              cache=fetched["cache"], cwd=fetched["tmp"])
    assert res.returncode == 0, res.stderr[-2000:]
    (row,) = json.loads(res.stdout)
    wheel = fetched["dist"] / "lmrfake-0.1.0-py3-none-any.whl"
    import hashlib
    assert row["package"] == "lmrfake" and row["version"] == "0.1.0" and row["tier"] == "feature"
    assert row["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert row["first_released"] == "2025-10-02" and row["split"] == "upstream"
    # running_mean: out, m, for, m =, append, return (6; the comment and docstring do not count); forward: 2
    assert row["masked_lines"] == 8
    assert row["goal"] == "lmrfake/ops.py::running_mean; lmrfake/model.py::Smoother.forward"
    # --since compares the first release (2025-10-02), not the paper's date (2025-10-01)
    since = cli("tasks", "list", "--tasks", str(fetched["tasks"]), "--split", "upstream", "--since", "2025-10-02",
                "--json", cache=fetched["cache"], cwd=fetched["tmp"])
    assert len(json.loads(since.stdout)) == 1
    later = cli("tasks", "list", "--tasks", str(fetched["tasks"]), "--split", "upstream", "--since", "2025-10-03",
                "--json", cache=fetched["cache"], cwd=fetched["tmp"])
    assert later.returncode == 2 and "nothing selected" in later.stderr
    # 'all' is lite and main: the upstream task is not in it
    every = cli("tasks", "list", "--tasks", str(fetched["tasks"]), "--split", "all", "--json",
                cache=fetched["cache"], cwd=fetched["tmp"])
    assert every.returncode == 2 and "nothing selected" in every.stderr


def test_fixtures_then_validate_and_lint(fetched):
    tasks, cache, tmp = fetched["tasks"], fetched["cache"], fetched["tmp"]
    res = cli("tasks", "fixtures", "--tasks", str(tasks), "-t", "fake-smoother", cache=cache, cwd=tmp)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    expected = [json.loads(x) for x in (tasks / "fake-smoother" / "tests" / "expected" / "probe_smoother.jsonl")
                .read_text().splitlines()]
    cases = {e["case"]: e for e in expected if "case" in e}
    assert len(cases) == 4 and all(c["status"] == "ok" for c in cases.values())
    # from the unmasked release: m = 2, 0.25 * 2 + 0.75 * 0 = 0.5, 0.25 * 0.5 + 0.75 * 1 = 0.875
    assert [cases["mean_alone"]["outputs"][f"mean.{i}"]["v"] for i in range(3)] == ["2.0", "0.5", "0.875"]
    check = cli("tasks", "fixtures", "--tasks", str(tasks), "-t", "fake-smoother", "--check", cache=cache, cwd=tmp)
    assert check.returncode == 0, check.stdout[-2000:]
    res = cli("validate", "--tasks", str(tasks), "--split", "upstream", "--mutants", "--json", cache=cache, cwd=tmp)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    (val,) = json.loads(res.stdout)
    assert val["reference_passed"] == val["reference_runs"] == 3
    assert val["stub_status"] == "failed"
    assert val["wrong_caught"] == val["wrong_total"] == len(WRONG)
    assert val["mutants_total"] > 5 and val["mutants_killed"] >= 1
    lint = cli("tasks", "lint", "--tasks", str(tasks), "--split", "upstream", "--json", cache=cache, cwd=tmp)
    kinds = {p["kind"] for p in json.loads(lint.stdout)}
    assert "body-near-elsewhere" not in kinds and "mask-mismatch" not in kinds, lint.stdout
    assert "few-wrong-variants" in kinds  # two declared edits, the contract wants ten


def test_a_wrong_edit_that_does_not_match_is_a_clear_error(fetched):
    tasks = fetched["tmp"] / "tasks-badedit"
    wheel = fetched["dist"] / "lmrfake-0.1.0-py3-none-any.whl"
    bad = {"nowhere": {"why": "x", "edits": [{"file": "lmrfake/ops.py", "search": "no such text", "replace": "y"}]}}
    write_recipe(tasks, wheel, wrong=bad)
    res = cli("validate", "--tasks", str(tasks), "--split", "upstream", "--repeat", "1", cache=fetched["cache"],
              cwd=fetched["tmp"])
    assert res.returncode == 2
    assert "nowhere.json" in res.stderr and "occurs 0 times in lmrfake/ops.py" in res.stderr


def test_hash_mismatch_is_a_clear_error_naming_the_task(tmp_path):
    wheel = build_wheel(tmp_path / "dist")
    write_recipe(tmp_path / "tasks", wheel, task_id="fake-badhash", sha256="0" * 64)
    res = cli("tasks", "fetch", "--tasks", str(tmp_path / "tasks"), "--find-links", str(tmp_path / "dist"),
              cache=tmp_path / "cache", cwd=tmp_path)
    assert res.returncode == 2
    assert "fake-badhash: sha256 of lmrfake-0.1.0-py3-none-any.whl is" in res.stderr
    assert "the recipe says 0000" in res.stderr


def test_a_copy_of_a_target_elsewhere_is_a_lint_error(fetched, tmp_path):
    tasks = tmp_path / "tasks"
    wheel = fetched["dist"] / "lmrfake-0.1.0-py3-none-any.whl"
    root = write_recipe(tasks, wheel, task_id="fake-keeps-legacy")
    info = json.loads((root / "info.json").read_text())
    info["upstream"]["remove"] = []  # legacy.py's `ema` is the running mean under other names
    (root / "info.json").write_text(json.dumps(info))
    res = cli("tasks", "lint", "--tasks", str(tasks), "--split", "upstream", "--json", cache=fetched["cache"],
              cwd=tmp_path)
    found = [p for p in json.loads(res.stdout) if p["kind"] == "body-near-elsewhere"]
    assert res.returncode == 1 and found, res.stdout
    assert "lmrfake/ops.py::running_mean" in found[0]["detail"] and "lmrfake/legacy.py" in found[0]["detail"]


def test_prompt_export_and_run_see_only_the_masked_release(fetched, tmp_path):
    tasks, cache = fetched["tasks"], fetched["cache"]
    if not (tasks / "fake-smoother" / "tests" / "expected" / "probe_smoother.jsonl").is_file():
        assert cli("tasks", "fixtures", "--tasks", str(tasks), "-t", "fake-smoother", cache=cache,
                   cwd=tmp_path).returncode == 0
    prompt = cli("tasks", "prompt", "fake-smoother/1", "--tasks", str(tasks), cache=cache, cwd=tmp_path).stdout
    assert "### `lmrfake/ops.py`" in prompt and "### `lmrfake/model.py`" in prompt
    assert "- `lmrfake/model.py`: `Smoother.forward`" in prompt
    assert "out.append(m)" not in prompt and "running_mean(values, self.decay)" not in prompt
    res = cli("workspace", "export", "--out", str(tmp_path / "ws"), "--tasks", str(tasks), "-t", "fake-smoother",
              cache=cache, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    ws = tmp_path / "ws" / "fake-smoother__1"
    assert "raise NotImplementedError" in (ws / "lmrfake" / "ops.py").read_text()
    assert not (ws / "lmrfake" / "legacy.py").exists() and not (ws / "lmrfake" / "tests").exists()
    assert "`Smoother.forward` in `lmrfake/model.py`" in (ws / "INSTRUCTIONS.md").read_text()
    for model, passed in (("reference", "1/1"), ("stub", "0/1")):
        run = cli("run", "--model", model, "--tasks", str(tasks), "--split", "upstream", "--run-dir",
                  str(tmp_path / model), cache=cache, cwd=tmp_path)
        assert run.returncode == 0 and f"{model}: {passed} passed" in run.stdout, run.stdout[-2000:] + run.stderr


def test_a_task_environment_serves_the_warm_batches(fetched, tmp_path):
    # the probe imports a requirement the harness lacks: the fetch builds the task's environment (uv, from a local
    # folder here), and validation's warm batches run in that environment's interpreter
    dist = fetched["dist"]
    build_dep_wheel(dist)
    tasks = tmp_path / "tasks"
    write_recipe(tasks, dist / "lmrfake-0.1.0-py3-none-any.whl", task_id="fake-with-dep",
                 requirements=["lmrfakedep==0.1.0"])
    uv = {"UV_FIND_LINKS": str(dist), "UV_NO_INDEX": "1", "UV_OFFLINE": "1"}
    res = cli("tasks", "fetch", "--tasks", str(tasks), cache=fetched["cache"], cwd=tmp_path, **uv)
    assert res.returncode == 0 and "fake-with-dep: environment ready" in res.stdout, res.stdout + res.stderr
    res = cli("tasks", "fixtures", "--tasks", str(tasks), "-t", "fake-with-dep", cache=fetched["cache"], cwd=tmp_path)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    res = cli("validate", "--tasks", str(tasks), "--split", "upstream", "--repeat", "2", "--json",
              cache=fetched["cache"], cwd=tmp_path)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    (val,) = json.loads(res.stdout)
    assert val["reference_passed"] == 2 and val["stub_status"] == "failed" and val["wrong_caught"] == len(WRONG)
