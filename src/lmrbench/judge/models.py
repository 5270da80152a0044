"""What a judge must answer (its records are in lmrbench.records)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class JudgeVerdict(BaseModel):
    """What a judge must answer, validated."""

    category: Literal[1, 2, 3] = Field(description="1 incorrect logic, 2 logic right but subtle errors, 3 correct.")
    rationale: str = Field(min_length=1, max_length=4000, description="A short justification.")
