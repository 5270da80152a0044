"""Budget forcing in the decoding loop, and the metrics of a test-time scaling method."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from s1.answers import extract_answer
from s1.config import BudgetConfig
from s1.generation import Generation
from s1.model import State, ToyReasoner
from s1.tokenizer import ToyTokenizer


def budget_forced_generate(model: ToyReasoner, tokenizer: ToyTokenizer, prompt_ids: Sequence[int],
                           budget: BudgetConfig) -> Generation:
    """Greedy generation for one question under budget forcing.

    Args:
        model: the model (start / advance / logits).
        tokenizer: its tokenizer (delimiters; `budget.wait` and `budget.answer_prefix` are encoded with it).
        prompt_ids: the question's tokens (no delimiter).
        budget: the thinking budget; the maximum is checked before each token the model generates while thinking.

    Returns:
        Generation.

    Raises:
        ValueError: if a limit is negative, or budget.wait encodes to no token.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def control(compute: Sequence[float], a_min: float, a_max: float) -> float:
    """Control of a test-time scaling method evaluated at the compute amounts `compute`.

    Args:
        compute: the test-time compute of each evaluated setting (e.g. mean thinking tokens), at least one.
        a_min, a_max: the bounds the method is meant to respect (a_min <= a_max).

    Returns:
        float in [0, 1].

    Raises:
        ValueError: for an empty `compute` or a_min > a_max.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def scaling(compute: Sequence[float], accuracy: Sequence[float]) -> float:
    """Scaling of a test-time scaling method evaluated at the compute amounts `compute`.

    Args:
        compute: the test-time compute of each evaluated setting, pairwise distinct, at least two.
        accuracy: the accuracy at each setting (same length).

    Returns:
        float.

    Raises:
        ValueError: for fewer than two settings, different lengths, or repeated compute amounts.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def performance(accuracy: Sequence[float]) -> float:
    """Performance of a test-time scaling method, from the accuracy at each evaluated setting (at least one).

    Raises:
        ValueError: when `accuracy` is empty.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
