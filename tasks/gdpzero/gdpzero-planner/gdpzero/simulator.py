"""A scripted, deterministic stand-in for the LLM that GDP-Zero prompts.

In the paper one LLM plays four roles: policy prior, value function, user simulator and system model.
Here each role is a small hand-written function of the dialogue state, so planning runs offline and
gives the same result every time. The task is a toy version of PersuasionForGood: the system tries to
get the user to donate to a charity.

User replies are "stochastic" in the sense that one (state, act) pair has several possible outcomes;
``respond(state, act, sample)`` returns outcome number ``sample``, chosen by a hash of the dialogue, the
act and ``sample``. Different sample indices stand for different LLM generations.
"""

from __future__ import annotations

import math
import random
import zlib
from dataclasses import dataclass

ACTS = ("logical_appeal", "emotion_appeal", "credibility_appeal", "task_inquiry", "propose_donation")

# Base effect of each act on the user's inclination to donate, and how noisy the user's reaction is.
EFFECT = {"logical_appeal": 0.35, "emotion_appeal": 0.5, "credibility_appeal": 0.3, "task_inquiry": 0.15,
          "propose_donation": 0.0}
NOISE = {"logical_appeal": 0.3, "emotion_appeal": 0.6, "credibility_appeal": 0.2, "task_inquiry": 0.1,
         "propose_donation": 0.0}
REPLIES = ("agrees", "is curious", "hesitates", "objects")


@dataclass(frozen=True)
class DialogueState:
    """The dialogue so far: (system act, user reply) turns, the user's hidden inclination, the outcome."""

    turns: tuple[tuple[str, str], ...] = ()
    inclination: float = 0.0
    outcome: str | None = None  # "donated", "refused" or None while the dialogue goes on

    @property
    def n_turns(self) -> int:
        return len(self.turns)


class PersuasionSimulator:
    """User simulator, policy prior and value function of the toy persuasion task."""

    def __init__(self, max_turns: int = 6, donate_threshold: float = 0.8, seed: int = 0) -> None:
        self.acts = ACTS
        self.max_turns = max_turns
        self.donate_threshold = donate_threshold
        self.seed = seed

    # -- user simulator -------------------------------------------------------------------------
    def _rng(self, state: DialogueState, act: str, sample: int) -> random.Random:
        key = f"{self.seed}|{state.turns}|{act}|{sample}".encode()
        return random.Random(zlib.crc32(key))

    def respond(self, state: DialogueState, act: str, sample: int = 0) -> DialogueState:
        """The state after the system uses ``act`` and the user answers (outcome number ``sample``)."""
        if self.is_terminal(state):
            raise ValueError("the dialogue is over")
        rng = self._rng(state, act, sample)
        inclination = state.inclination
        outcome = None
        if act == "propose_donation":
            if inclination >= self.donate_threshold or rng.random() < 0.1:
                outcome, reply = "donated", "agrees"
            else:
                inclination -= 0.4
                reply = "objects"
                if inclination < -0.5:
                    outcome = "refused"
        else:
            repeats = sum(1 for a, _ in state.turns if a == act)
            delta = EFFECT[act] / (1 + repeats) + NOISE[act] * (rng.random() - 0.5)
            inclination += delta
            reply = next(r for r, bound in zip(REPLIES, (0.4, 0.2, 0.0, -math.inf), strict=True) if delta > bound)
        turns = state.turns + ((act, reply),)
        if outcome is None and len(turns) >= self.max_turns:
            outcome = "refused"
        return DialogueState(turns=turns, inclination=round(inclination, 6), outcome=outcome)

    def is_terminal(self, state: DialogueState) -> bool:
        return state.outcome is not None

    # -- policy prior ("which act would a good persuader use next?") -----------------------------
    def prior(self, state: DialogueState) -> dict[str, float]:
        """A distribution over ``acts``; every act keeps some mass (as with Laplace smoothing)."""
        last = state.turns[-1][0] if state.turns else None
        scores = []
        for i, act in enumerate(self.acts):
            s = 0.2 * i * (state.n_turns % 3 - 1) + (1.5 * state.inclination if act == "propose_donation" else 0.0)
            if act == last:
                s -= 0.7
            scores.append(s)
        z = [math.exp(s) for s in scores]
        total = sum(z)
        return {act: 0.9 * v / total + 0.1 / len(self.acts) for act, v in zip(self.acts, z)}

    # -- value function ("how likely is the user to donate in the end?") -------------------------
    def value(self, state: DialogueState) -> float:
        """1 for a donation, 0 for a refusal, otherwise a squashed inclination in (0, 1)."""
        if state.outcome == "donated":
            return 1.0
        if state.outcome == "refused":
            return 0.0
        return round(1.0 / (1.0 + math.exp(-3.0 * (state.inclination - 0.5))), 6)
