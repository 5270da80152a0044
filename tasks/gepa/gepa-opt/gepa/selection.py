"""Random choices of the loop: drawing by frequency, and round-robin module selection."""
from __future__ import annotations

import random

from gepa.program import MODULE_NAMES
from gepa.state import CandidatePool


def sample_proportional(rng: random.Random, weights: dict[int, int]) -> int:
    """Draw one key of `weights` with probability proportional to its (non-negative) weight.

    Uses exactly one `rng.random()` draw and walks the keys in ascending order, so the result depends only on
    the weights and the generator's state."""
    total = sum(weights.values())
    if total <= 0 or any(w < 0 for w in weights.values()):
        raise ValueError("weights must be non-negative with a positive sum")
    u = rng.random() * total
    keys = sorted(weights)
    for key in keys:
        u -= weights[key]
        if u < 0:
            return key
    return max(k for k in keys if weights[k] > 0)


def select_module(pool: CandidatePool, k: int) -> int:
    """SELECTMODULE: the module of candidate k to mutate, round-robin over MODULE_NAMES; advances k's cursor."""
    module = pool.module_cursor[k]
    pool.module_cursor[k] = (module + 1) % len(MODULE_NAMES)
    return module
