"""Toy evaluation data: references and two systems' summaries of the same inputs."""

REFERENCES = [
    "the council approved the new budget on tuesday .",
    "heavy rain flooded several roads in the north .",
    "the company reported higher profits this quarter .",
    "scientists found water ice near the lunar pole .",
    "the striker scored twice in the final minutes .",
    "local schools will close early for the holiday .",
]

SYSTEM_GOOD = [
    "on tuesday the council passed the new budget .",
    "several northern roads were flooded by heavy rain .",
    "the firm posted bigger profits this quarter .",
    "researchers discovered ice near the moon's pole .",
    "the striker scored two goals late in the final .",
    "schools will close early for the holiday .",
]

SYSTEM_POOR = [
    "the budget .",
    "it rained .",
    "profits .",
    "the moon is far away .",
    "a game was played .",
    "schools are open .",
]

SYSTEMS = {"good": SYSTEM_GOOD, "poor": SYSTEM_POOR}
