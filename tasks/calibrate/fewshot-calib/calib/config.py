"""Options of contextual calibration."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CalibConfig:
    """Attributes:
        content_free: the content-free test inputs whose predictions estimate the model's bias.
    """

    content_free: tuple[str, ...] = ("n/a", "[mask]", "")

    def __post_init__(self) -> None:
        if not self.content_free:
            raise ValueError("at least one content-free input is needed")
