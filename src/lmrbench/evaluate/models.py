"""Typed records of the evaluation stage: predictions in, evaluations out."""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, model_validator

from lmrbench.sandbox.base import Isolation


class Prediction(BaseModel):
    """One line of predictions.jsonl: one (instance, model, sample), in one of three forms."""

    instance_id: str = Field(description="'<task_id>/<index>'.")
    model: str = Field(description="Name of the model or built-in solver that made it.")
    sample: int = Field(default=0, ge=0, description="Sample index, for pass@k.")
    functions: dict[str, dict[str, str]] | None = Field(
        default=None, description="Form (a): {file: {qualified name: source of the definition}}."
    )
    diff: str | None = Field(default=None, description="Form (b): a unified diff against the masked repository.")
    repo_dir: str | None = Field(default=None, description="Form (c): path of a revised repository folder.")
    error: str | None = Field(default=None, description="Generation failed; the reason. No code to apply.")
    meta: dict[str, Any] = Field(default_factory=dict, description="Solver details: prompt version, usage, ...")

    @model_validator(mode="after")
    def _one_form(self) -> Prediction:
        forms = [f for f in (self.functions, self.diff, self.repo_dir) if f is not None]
        if len(forms) > 1:
            raise ValueError("give exactly one of 'functions', 'diff' or 'repo_dir'")
        if not forms and self.error is None:
            raise ValueError("give one of 'functions', 'diff' or 'repo_dir' (or 'error')")
        return self

    def content_hash(self) -> str:
        """Hash of what gets applied (not of metadata), so a changed prediction is re-evaluated."""
        body = {"functions": self.functions, "diff": self.diff, "repo_dir": self.repo_dir, "error": self.error}
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class Status(StrEnum):
    """Outcome of one evaluation."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    INVALID = "invalid_prediction"


class Grading(StrEnum):
    """How a verdict was computed."""

    PROBE = "probe"  # probe data compared with the reference's outside the sandbox: cannot be forged
    PYTEST = "pytest"  # pytest inside the sandbox, nonce + exit code: the candidate shares the grader's process
    LEGACY = "legacy"  # the original layout's own test script and log rule
class ErrorCause(StrEnum):
    """Why an evaluation is an `error`: the environment, not the prediction, kept the tests from measuring it."""

    MISSING_MODULE = "missing_module"
    PACKAGE_INSTALL = "package_install"
    INCOMPATIBLE = "incompatible_package"
    LFS_POINTER = "lfs_pointer"
    MISSING_FIXTURE = "missing_fixture"
    NETWORK = "network"
    GPU = "gpu"
    MISSING_TEST = "missing_test"
    MISSING_REPO = "missing_repo"


class LegacyVerdict(BaseModel):
    """Original-layout grading: the original log rule, and the same rule plus exit code 0."""

    log_rule: bool = Field(description="The log has a 'Passed' and no 'Failed' (the original rule).")
    strict: bool = Field(description="log_rule and the test process exited 0.")
    log_found: bool
    log_file: str = Field(default="", description="The log read, relative to the test's folder (the test's own "
                          "name, or the one log the run wrote under another name).")


class Evaluation(BaseModel):
    """One line of evaluations.jsonl."""

    instance_id: str
    task_id: str
    index: int
    model: str
    sample: int
    key: str = Field(description="Hash of task content, prediction content and evaluation settings.")
    status: Status
    tests_passed: int = 0
    tests_total: int = 0
    duration_s: float = Field(default=0.0, description="Wall time of the whole evaluation.")
    tests_duration_s: float = Field(default=0.0, description="Time pytest reports for the tests themselves.")
    exit_code: int | None = None
    reason: str = Field(default="", description="Why it is not passed, in one line.")
    log_path: str = ""
    isolation: Isolation | None = None
    legacy: LegacyVerdict | None = None
    grading: Grading = Field(default=Grading.PYTEST, description="How the verdict was computed.")
    forgeable: bool = Field(
        default=False, description="The verdict was computed inside the candidate's process (pytest, legacy)."
    )
    failures: list[str] = Field(default_factory=list, description="The first failing cases, with reasons.")
    run_path: str = Field(default="cold", description="'cold' (own sandbox) or 'warm' (trusted batch).")
    outputs_path: str = Field(default="", description="The probe data kept for re-grading, if any.")
    cause: ErrorCause | None = Field(default=None, description="Only for status error: what in the environment "
                                     "kept the tests from measuring the prediction.")

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED

    @property
    def share_passed(self) -> float:
        return self.tests_passed / self.tests_total if self.tests_total else 0.0
