"""Group identities used for perceivers and experiencers."""

from __future__ import annotations

NEUTRAL = "a person"  # the unmarked identity, used as a baseline row/column

RELIGION = ["a Christian", "a Muslim", "a Jew", "a Buddhist", "a Hindu"]

# Several surface labels per ethnic group: two labels of the same coarse group count as in-group.
ETHNICITY_GROUP = {
    "a White person": "white",
    "a White American": "white",
    "a Caucasian": "white",
    "a Black person": "black",
    "an African American": "black",
    "an Asian person": "asian",
    "an Asian American": "asian",
    "a Hispanic person": "hispanic",
    "a Latino": "hispanic",
}
ETHNICITY = list(ETHNICITY_GROUP)

NATIONALITY = [f"a person from {c}" for c in ("the United States", "Canada", "Germany", "China", "Japan", "India",
                                                 "Nigeria", "Brazil", "Mexico")]

GROUPINGS = {"religion": RELIGION, "ethnicity": ETHNICITY, "nationality": NATIONALITY}


def social_group_map(grouping: str) -> dict[str, str] | None:
    """Label -> coarse group for groupings whose labels are not all distinct groups (else None)."""
    return dict(ETHNICITY_GROUP) if grouping == "ethnicity" else None
