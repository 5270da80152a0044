"""The built-in suite itself: lint-clean, fixtures reproducible from the reference, and every implementation
discriminates (reference passes, stub fails, every hand-written wrong variant fails). A change that weakens a
task turns this red."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from lmrbench.authoring.fixtures import FixtureResult, build_fixtures
from lmrbench.authoring.lint import lint
from lmrbench.authoring.validate import ImplementationValidation, ValidateConfig, validate
from lmrbench.records import Status
from lmrbench.tasks.categories import Category
from lmrbench.tasks.loader import load_tasks

SUITE = load_tasks(strict=True)
IDS = [i.instance_id for i in SUITE.instances()]


@pytest.fixture(scope="module")
def validation() -> dict[str, ImplementationValidation]:
    impls = [(SUITE.task(i.task_id), i) for i in SUITE.instances()]
    return {r.instance_id: r for r in validate(impls, ValidateConfig(repeat=1, workers=2))}


def test_suite_is_lint_clean():
    errors = [p.line() for p in lint(SUITE) if p.severity == "error"]
    assert errors == []


def test_every_category_is_covered():
    assert {i.category for i in SUITE.instances()} == set(Category)


@pytest.fixture(scope="module")
def fixture_checks() -> dict[str, FixtureResult]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda t: build_fixtures(t, check=True), SUITE.tasks)
        return {r.task_id: r for r in results}


@pytest.mark.parametrize("task_id", [t.task_id for t in SUITE.tasks])
def test_fixtures_are_reproducible_from_the_reference(fixture_checks, task_id):
    res = fixture_checks[task_id]
    assert res.ok, res.detail


@pytest.mark.parametrize("instance_id", IDS)
def test_implementation_discriminates(validation, instance_id):
    res = validation[instance_id]
    assert res.reference_passed == res.reference_runs == 1, res.reference_reasons
    assert res.stub_status is not Status.PASSED
    assert res.wrong_total >= 3
    assert res.wrong_survivors == []
    assert res.tests >= 5
