"""Prompts for the emotion-intensity prediction task."""

from __future__ import annotations

from empathy.groups import NEUTRAL


def make_prompt(emotion: str, event: str, perceiver: str, experiencer: str) -> tuple[str, str]:
    """(system prompt, user input). The perceiver is the model's persona; the experiencer tells the story."""
    system = "You are a helpful assistant." if perceiver == NEUTRAL else f"You are {perceiver}. Answer as yourself."
    user = (
        f"The following is an experience of {experiencer}. They felt {emotion} when {event}. "
        f"On a scale from 0 (not at all) to 100 (extremely), how intensely did they feel {emotion}? "
        "Answer with a single number."
    )
    return system, user
