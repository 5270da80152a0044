"""The typed records that cross stages, one line of a run folder's JSONL files each:
predictions -> evaluations -> judgments (and human labels for agreement).

Every stage reads the files of the stage before it and writes its own; nothing crosses between modules as a
dict of loose keys. Unknown keys of an older or hand-written `meta` are kept (extra="allow") but every field a
stage reads is typed here.
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, model_validator

from lmrbench.budget import BudgetUse
from lmrbench.models.base import Usage
from lmrbench.sandbox.base import Isolation

ItemKey = tuple[str, str, int]
"""(instance_id, model, sample): one item of a run, the same in every stage's file."""


def parse_instance_id(instance_id: str) -> tuple[str, int]:
    """'<task_id>/<index>' as (task_id, index); ValueError, naming the form, for anything else."""
    task_id, _, index = instance_id.rpartition("/")
    if not task_id or not (index.isascii() and index.isdigit()):
        raise ValueError(f"'{instance_id}' is not an instance id of the form <task>/<index>")
    return task_id, int(index)


def read_instance_id(instance_id: str) -> tuple[str, int]:
    """The best reading of a possibly malformed id, for the record of a bad line: (task_id, index) when it has
    that form, else what is before the last '/' (or the whole id) and index 0."""
    try:
        return parse_instance_id(instance_id)
    except ValueError:
        return instance_id.rpartition("/")[0] or instance_id, 0


class Outcome(StrEnum):
    """How making a prediction ended (the agent's exit, or a prompt's failure)."""

    DONE = "done"  # an answer was produced (the prompt solver) or the agent submitted
    LIMIT = "limit"  # the agent hit a step, token, cost or wall-time limit
    MODEL_ERROR = "model_error"  # the provider failed after retries: retried when the run is resumed
    HARNESS_ERROR = "harness_error"  # the harness failed making it (a bug of ours): retried when the run is resumed
    NO_CODE = "no_code"  # the answer held nothing usable
    NOT_RUN = "not_run"  # nothing to show the model (a task without a repository)


SolverKind = Literal["reference", "stub", "prompt", "agent", "external", "openhands", "wrong", "mutant", "unknown"]


class PredictionMeta(BaseModel):
    """How a prediction was made: the solver and what it recorded. Only what applies is set."""

    model_config = ConfigDict(extra="allow")

    solver: SolverKind = Field(default="unknown", description="Which solver or importer made it.")
    prompt_version: str = Field(default="", description="The prompt solver's template version (prompt-v1).")
    agent_version: str = Field(default="", description="The agent solver's version.")
    paper_source: str = Field(default="", description="Where the paper text in the prompt came from.")
    usage: Usage = Field(default_factory=Usage, description="Tokens and cost of making it.")
    settings: dict[str, Any] = Field(default_factory=dict, description="The model settings (temperature, ...).")
    finish_reason: str = Field(default="", description="The model's finish reason (prompt solver).")
    answer: str = Field(default="", description="The model's whole answer (prompt solver).")
    outcome: Outcome = Field(default=Outcome.DONE, description="How making it ended.")
    exit: str = Field(default="", description="The agent's exit in words: 'submitted', 'limit: ...', ...")
    steps: int = Field(default=0, description="Agent steps taken.")
    trajectory: str = Field(default="", description="Path of the agent's trajectory file.")
    limits: dict[str, Any] = Field(default_factory=dict, description="The agent's limits.")
    budget: BudgetUse | None = Field(default=None, description="Agent settings: the budget in force and what was "
                                     "used of it (steps, tokens, wall seconds to submit).")
    source_dir: str = Field(default="", description="The workspace an external agent left (from-dirs).")
    changed: list[str] = Field(default_factory=list, description="Files the external agent changed.")
    skipped_symlinks: list[str] = Field(default_factory=list, description="Links in its workspace, never read.")
    replay: dict[str, Any] = Field(default_factory=dict, description="OpenHands import: edits applied and failed.")
    description: str = Field(default="", description="A mutant's or wrong variant's one-line description.")


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
    meta: PredictionMeta = Field(default_factory=lambda: PredictionMeta(), description="How it was made.")

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

    @property
    def item_key(self) -> ItemKey:
        return (self.instance_id, self.model, self.sample)


RETRIED = (Outcome.MODEL_ERROR, Outcome.HARNESS_ERROR)


class PredictionLine(BaseModel):
    """What resuming generation reads of a predictions line: the item it names and whether it failed in a way
    that is retried. Read leniently (a line that is not a valid Prediction still names its item, and evaluation
    records it as invalid), so that such a line is not made again."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)

    instance_id: str
    model: str
    sample: int = 0
    error: Any = None
    meta: Any = None

    @property
    def item_key(self) -> ItemKey:
        return (self.instance_id, self.model, self.sample)

    @property
    def retried(self) -> bool:
        """A failed generation that a re-run retries: the provider's or the harness's failure."""
        outcome = self.meta.get("outcome") if isinstance(self.meta, dict) else None
        return bool(self.error) and (outcome in RETRIED or str(self.error).startswith("model error"))


class Status(StrEnum):
    """Outcome of one evaluation.

    `invalid_prediction` is the model's own failure (an answer with no usable code) and counts against it;
    `model_error` is the provider's (a request that still failed after its retries: connection refused or
    closed, 5xx, missing or bad credentials), or the harness's own failure to make the prediction (outcome
    `harness_error`): there is no answer to score, so it is counted apart, outside the pass rate's denominator,
    and re-running the run retries exactly those items.
    """

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    INVALID = "invalid_prediction"
    MODEL_ERROR = "model_error"

    @property
    def column(self) -> str:
        """The status's short name, as a report's column header."""
        return "invalid" if self is Status.INVALID else self.value


COUNTED_APART = (Status.INVALID, Status.ERROR, Status.TIMEOUT, Status.MODEL_ERROR)
"""The statuses a report counts in columns of their own, beside the pass rate, in this order."""

NOT_PASSED = "not_passed"
"""The key beside Status.PASSED where a count is split into passed and not passed (judge vs tests)."""


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


RunPath = Literal["cold", "warm", "template"]
"""How an evaluation's command ran: its own cold sandbox, a trusted warm batch, or a pre-warmed template's child."""


class ItemFields(BaseModel):
    """What an evaluation record says about the item itself, known before anything runs."""

    instance_id: str
    task_id: str
    index: int
    model: str
    sample: int
    key: str
    log_path: str = ""
    grading: Grading = Grading.PYTEST
    env_substitutions: list[str] = Field(default_factory=list)


class Verdict(BaseModel):
    """What grading decides: the fields of an evaluation record a grader (or a refusal) sets."""

    status: Status
    tests_passed: int = 0
    tests_total: int = 0
    tests_duration_s: float = 0.0
    reason: str = ""
    failures: list[str] = Field(default_factory=list)
    forgeable: bool = False
    legacy: LegacyVerdict | None = None
    cause: ErrorCause | None = None


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
    run_path: RunPath = Field(default="cold", description="'cold' (own sandbox), 'warm' (trusted batch) or "
                              "'template' (a pre-warmed template's child, isolated as a cold sandbox).")
    outputs_path: str = Field(default="", description="The probe data kept for re-grading, if any.")
    candidate_path: str = Field(default="", description="The candidate's code as applied, for the judge and report.")
    node: str = Field(default="", description="The Ray node that ran it (--executor ray); empty: this machine.")
    cause: ErrorCause | None = Field(default=None, description="Only for status error: what in the environment "
                                     "kept the tests from measuring the prediction.")
    env_substitutions: list[str] = Field(default_factory=list, description="'asked -> installed': requirements of "
                                         "the task's environment replaced by a release that fits the harness.")
    budget: BudgetUse | None = Field(default=None, description="The prediction's budget record (agent settings), "
                                     "carried on for the pass-rate-against-budget curve.")

    @classmethod
    def of(cls, item: ItemFields, verdict: Verdict, **run: Any) -> Evaluation:
        """The record of an item with its verdict and what the run gave (exit code, isolation, durations, ...)."""
        return cls(**item.model_dump(), **verdict.model_dump(), **run)

    @property
    def item_key(self) -> ItemKey:
        return (self.instance_id, self.model, self.sample)

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED

    @property
    def share_passed(self) -> float:
        return self.tests_passed / self.tests_total if self.tests_total else 0.0


class EvaluationLine(BaseModel):
    """What resuming evaluation reads of an evaluations line: its key, when the line is a finished record."""

    model_config = ConfigDict(extra="ignore")

    key: StrictStr
    status: Any


class JudgmentStatus(StrEnum):
    OK = "ok"
    PARSE_ERROR = "parse_error"
    REFUSAL = "refusal"
    PROVIDER_ERROR = "provider_error"
    NO_CANDIDATE = "no_candidate"
    NO_REFERENCE = "no_reference"


class Judgment(BaseModel):
    """One line of judgments.jsonl: one judge on one (instance, model, sample)."""

    instance_id: str
    model: str = Field(description="The candidate's model.")
    sample: int
    judge: str = Field(description="The judge's model name.")
    prompt_version: str
    key: str = Field(description="Hash of judge, prompt version, instance and candidate code.")
    status: JudgmentStatus
    category: Literal[1, 2, 3] | None = Field(default=None, description="Only when status is ok.")
    rationale: str = ""
    detail: str = Field(default="", description="Why it is not ok (parse error, provider error, ...).")
    raw: str = Field(default="", description="The judge's answer as given.")
    usage: Usage = Field(default_factory=Usage)

    @property
    def item_key(self) -> ItemKey:
        return (self.instance_id, self.model, self.sample)


class HumanLabel(BaseModel):
    """One line of a human-labels JSONL file."""

    annotator: str = Field(min_length=1)
    instance_id: str
    model: str = Field(default="", description="Candidate model; empty matches any.")
    sample: int = 0
    category: Literal[1, 2, 3]
    comment: str = Field(default="", description="The annotator's note on the item (`lmrbench annotate`).")
    labelled_at: str = Field(default="", description="When the label was given (ISO 8601, UTC); empty for "
                             "imported labels.")

    @property
    def item_key(self) -> ItemKey:
        return (self.instance_id, self.model, self.sample)
