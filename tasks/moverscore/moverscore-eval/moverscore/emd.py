"""Earth mover's distance between two discrete distributions, solved exactly as a linear program."""

from __future__ import annotations

import numpy as np
import torch
from scipy.optimize import linprog


def transport_plan(a: np.ndarray, b: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Optimal flow ``F`` (shape ``[len(a), len(b)]``) minimising ``sum(F * cost)``.

    Constraints: ``F >= 0``, rows of ``F`` sum to ``a``, columns sum to ``b``. ``a`` and ``b`` are
    non-negative and have the same total mass.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    cost = np.asarray(cost, dtype=np.float64)
    n, m = cost.shape
    if (n, m) != (a.size, b.size):
        raise ValueError(f"cost is {cost.shape}, histograms are {a.size} and {b.size}")
    rows = np.kron(np.eye(n), np.ones((1, m)))  # sum_j F_ij = a_i
    cols = np.kron(np.ones((1, n)), np.eye(m))  # sum_i F_ij = b_j
    res = linprog(
        cost.ravel(),
        A_eq=np.vstack([rows, cols]),
        b_eq=np.concatenate([a, b]),
        bounds=(0, None),
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    if res.status != 0:
        raise RuntimeError(f"transport problem not solved: {res.message}")
    return res.x.reshape(n, m)


def emd(a: torch.Tensor, b: torch.Tensor, cost: torch.Tensor) -> torch.Tensor:
    """Earth mover's distance: the minimal total cost of moving histogram ``a`` onto ``b``.

    ``a``: ``[n]``, ``b``: ``[m]`` (each summing to 1), ``cost``: ``[n, m]``. Returns a 0-d float64 tensor.
    """
    flow = transport_plan(a.detach().cpu().numpy(), b.detach().cpu().numpy(), cost.detach().cpu().numpy())
    return torch.tensor(float((flow * cost.detach().cpu().numpy()).sum()), dtype=torch.float64)
