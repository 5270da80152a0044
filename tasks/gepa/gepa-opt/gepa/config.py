"""Configuration of a GEPA run."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GEPAConfig:
    """Hyper-parameters of the optimisation loop (Algorithm 1)."""

    max_rollouts: int = 120
    """B: the rollout budget. One rollout is one execution of the system on one task instance, scored by the
    metric; every rollout of the run counts, whatever it is for."""
    minibatch_size: int = 3
    """b: the number of feedback instances a mutation is proposed and judged on."""
    n_pareto: int = 6
    """The size of D_pareto, the instances whose per-instance scores drive candidate selection."""
    minibatch_seed: int = 0
    """Seed of the minibatch sampler's own generator (the sampler never touches the optimiser's generator)."""

    def __post_init__(self) -> None:
        if self.max_rollouts < 1 or self.minibatch_size < 1 or self.n_pareto < 1:
            raise ValueError("max_rollouts, minibatch_size and n_pareto must be positive")
