"""Typed records of the judge stage."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from lmrbench.models.base import Usage


class JudgeVerdict(BaseModel):
    """What a judge must answer, validated."""

    category: Literal[1, 2, 3] = Field(description="1 incorrect logic, 2 logic right but subtle errors, 3 correct.")
    rationale: str = Field(min_length=1, max_length=4000, description="A short justification.")


class JudgmentStatus(StrEnum):
    OK = "ok"
    PARSE_ERROR = "parse_error"
    REFUSAL = "refusal"
    PROVIDER_ERROR = "provider_error"
    NO_CANDIDATE = "no_candidate"


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


class HumanLabel(BaseModel):
    """One line of a human-labels JSONL file."""

    annotator: str = Field(min_length=1)
    instance_id: str
    model: str = Field(default="", description="Candidate model; empty matches any.")
    sample: int = 0
    category: Literal[1, 2, 3]
