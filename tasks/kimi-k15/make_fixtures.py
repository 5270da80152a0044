"""Regenerate tests/fixtures for kimi-k15/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/kimi_cases.pt. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

F64, F32 = torch.float64, torch.float32

# N, k, longest length, fraction correct, dtype; tied lengths are frequent because lengths are small integers
LENGTH = [
    (3, 4, 9, 0.5, F64),
    (5, 8, 6, 0.3, F64),
    (2, 1, 7, 0.5, F64),  # k = 1: min = max
    (4, 2, 12, 0.7, F64),
    (1, 16, 30, 0.5, F64),
    (6, 5, 3, 0.5, F32),
    (3, 6, 40, 0.9, F32),
]

# N, k, T, tau, estimate, dtype, scale of the log-probs
LOSS = [
    (3, 4, 7, 0.5, "mean_reward", F64, 0.3),
    (2, 5, 6, 1.0, "mean_reward", F64, 0.1),
    (4, 2, 9, 0.1, "mean_reward", F64, 0.05),
    (1, 8, 5, 2.0, "mean_reward", F64, 0.5),
    (3, 1, 4, 0.5, "mean_reward", F64, 0.2),  # k = 1
    (3, 4, 7, 0.5, "log_mean_exp", F64, 0.3),
    (2, 6, 8, 0.05, "log_mean_exp", F64, 0.1),
    (2, 3, 5, 5.0, "log_mean_exp", F64, 0.2),
    (4, 4, 10, 0.3, "mean_reward", F32, 0.2),
    (3, 5, 6, 0.2, "log_mean_exp", F32, 0.2),
]

# N, k, tau, estimate, dtype
LOGZ = [
    (4, 5, 0.5, "mean_reward", F64),
    (3, 1, 0.2, "mean_reward", F64),
    (4, 5, 0.5, "log_mean_exp", F64),
    (2, 8, 0.02, "log_mean_exp", F64),
    (3, 4, 10.0, "log_mean_exp", F64),
    (3, 1, 0.3, "log_mean_exp", F64),
    (5, 3, 0.4, "log_mean_exp", F32),
]


def length_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n, k, longest, frac, dtype in LENGTH:
        lengths = torch.randint(1, longest + 1, (n, k), generator=g)
        correct = torch.rand(n, k, generator=g) < frac
        cases.append({"lengths": lengths, "correct": correct, "dtype": str(dtype).removeprefix("torch.")})
    # a group whose lengths are all equal and a group with one distinct length, in one batch
    cases.append({"lengths": torch.tensor([[5, 5, 5], [4, 4, 9]]), "correct": torch.tensor([[True, False, True],
                  [False, True, False]]), "dtype": "float64"})
    return cases


def rewards_of(n: int, k: int, g: torch.Generator, dtype: torch.dtype) -> torch.Tensor:
    """Correctness plus a length reward in [-0.5, 0.5] times a weight: the rewards the objective sees."""
    correct = (torch.rand(n, k, generator=g) < 0.5).to(dtype)
    return correct + 0.2 * (torch.rand(n, k, generator=g, dtype=dtype) - 0.5)


def logz_cases(g: torch.Generator) -> list[dict]:
    return [{"rewards": rewards_of(n, k, g, dtype), "tau": tau, "estimate": est} for n, k, tau, est, dtype in LOGZ]


def loss_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n, k, t, tau, est, dtype, scale in LOSS:
        lengths = torch.randint(1, t + 1, (n, k), generator=g)
        mask = torch.arange(t) < lengths.unsqueeze(-1)
        ref = (-torch.rand(n, k, t, generator=g, dtype=dtype) * 2.0).masked_fill(~mask, 0.0)
        # the trained policy's log-probs: near the reference inside each response, garbage past the end
        logprobs = ref + scale * torch.randn(n, k, t, generator=g, dtype=dtype)
        logprobs = torch.where(mask, logprobs, -5.0 * torch.rand(n, k, t, generator=g, dtype=dtype))
        responses = torch.randint(4, 15, (n, k, t), generator=g).masked_fill(~mask, 0)
        cases.append({"logprobs": logprobs, "ref": ref, "lengths": lengths, "responses": responses,
                      "rewards": rewards_of(n, k, g, dtype), "tau": tau, "estimate": est})
    return cases


def main(out: Path) -> None:
    g = torch.Generator().manual_seed(20250122)
    cases = {"length": length_cases(g), "logz": logz_cases(g), "loss": loss_cases(g)}
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "kimi_cases.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
