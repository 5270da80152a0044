"""Regenerate tests/fixtures for dapo/1 (inputs and options only; the reference's outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/dapo_cases.pt: a dict of case lists, one list per target. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch


def penalty_cases(g: torch.Generator) -> list[dict]:
    cases = []
    # every length from 0 to past the limit, for several limits and buffers (incl. buffer = 1 and = max_len)
    for max_len, buffer_len in ((10, 4), (12, 1), (8, 8), (20, 7), (5, 3)):
        cases.append({"lengths": torch.arange(0, max_len + 4), "max_len": max_len, "buffer_len": buffer_len})
    # random shapes: (N, G) and 3-D, a single response
    cases.append({"lengths": torch.randint(1, 40, (6, 8), generator=g), "max_len": 32, "buffer_len": 9})
    cases.append({"lengths": torch.randint(1, 20, (2, 3, 4), generator=g), "max_len": 16, "buffer_len": 16})
    cases.append({"lengths": torch.tensor([14]), "max_len": 16, "buffer_len": 4})
    cases.append({"lengths": torch.tensor([20480, 16384, 16385, 18000, 20481]), "max_len": 20480,
                  "buffer_len": 4096})
    return cases


def reward_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for shape, max_len, buffer_len in (((4, 8), 12, 4), ((1, 2), 6, 2), ((3, 5), 10, 10), ((7,), 9, 3)):
        cases.append({"correct": torch.rand(shape, generator=g) < 0.5,
                      "lengths": torch.randint(1, max_len + 1, shape, generator=g),
                      "max_len": max_len, "buffer_len": buffer_len})
    return cases


def advantage_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n, grp in ((1, 2), (3, 4), (5, 16), (2, 7)):
        for dtype in (torch.float64, torch.float32):
            for eps, unbiased in ((1e-6, True), (1e-6, False), (0.0, True), (0.1, False)):
                # outcome rewards +-1 plus a length penalty in [-1, 0], as the trainer produces them
                outcome = torch.where(torch.rand(n, grp, generator=g) < 0.4, 1.0, -1.0).double()
                outcome[:, 0], outcome[:, 1] = 1.0, -1.0  # no group of equal rewards (0 / 0 when eps = 0)
                penalty = -torch.rand(n, grp, generator=g, dtype=torch.float64).clamp(max=0.9) * (
                    torch.rand(n, grp, generator=g) < 0.5)
                cases.append({"rewards": (outcome + penalty).to(dtype), "eps": eps, "unbiased": unbiased})
    # a group whose rewards are all equal among mixed ones
    rewards = torch.tensor([[1.0, 1.0, 1.0], [1.0, -1.0, -0.5], [-1.0, -1.0, -1.0]], dtype=torch.float64)
    cases.append({"rewards": rewards, "eps": 1e-6, "unbiased": True})
    return cases


def _lengths(g: torch.Generator, n: int, grp: int, t: int) -> torch.Tensor:
    return torch.randint(1, t + 1, (n, grp), generator=g)


def loss_cases(g: torch.Generator) -> list[dict]:
    cases = []
    shapes = ((1, 1, 1), (1, 2, 3), (2, 4, 7), (3, 5, 11), (4, 8, 20), (2, 16, 6))
    for n, grp, t in shapes:
        for spread, (eps_low, eps_high) in ((0.05, (0.2, 0.28)), (0.6, (0.2, 0.28)), (0.6, (0.1, 0.5)),
                                            (0.4, (0.3, 0.3))):
            for dtype in (torch.float64, torch.float32):
                old = torch.log(torch.rand(n, grp, t, generator=g, dtype=torch.float64) * 0.98 + 0.01)
                new = old + spread * torch.randn(n, grp, t, generator=g, dtype=torch.float64)
                mask = torch.arange(t) < _lengths(g, n, grp, t).unsqueeze(-1)
                adv = torch.randn(n, grp, generator=g, dtype=torch.float64)
                cases.append({"logprobs": new.to(dtype), "old_logprobs": old.to(dtype), "advantages": adv.to(dtype),
                              "mask": mask, "eps_low": eps_low, "eps_high": eps_high})
    return cases


def _round(g: torch.Generator, correct: list[list[int]], t: int = 5, tag: int = 0) -> dict:
    """One scripted generation round with the given correctness pattern (groups x responses)."""
    correct_t = torch.tensor(correct, dtype=torch.bool)
    n, grp = correct_t.shape
    lengths = torch.randint(1, t + 1, (n, grp), generator=g)
    responses = torch.randint(1, 7, (n, grp, t), generator=g).masked_fill(torch.arange(t) >= lengths.unsqueeze(-1), 0)
    penalty = -torch.rand(n, grp, generator=g, dtype=torch.float64) * (lengths > 3)
    return {
        "prompts": torch.arange(n * 3).view(n, 3) + 100 * tag,  # tags every group with its round
        "answers": torch.randint(0, 5, (n,), generator=g),
        "responses": responses,
        "lengths": lengths,
        "old_logprobs": -torch.rand(n, grp, t, generator=g, dtype=torch.float64),
        "correct": correct_t,
        "rewards": torch.where(correct_t, 1.0, -1.0).double() + penalty,
    }


def sampling_cases(g: torch.Generator) -> list[dict]:
    mixed4 = [[1, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 1]]  # groups 0, 3, 4 informative
    all_right, all_wrong = [[1, 1, 1, 1]] * 3, [[0, 0, 0, 0]] * 2
    cases = [
        # filled by the first round, exactly
        {"rounds": [_round(g, mixed4, tag=0)], "batch_size": 3, "max_rounds": 4},
        # filled by the first round, more than needed: the first two kept groups
        {"rounds": [_round(g, mixed4, tag=0)], "batch_size": 2, "max_rounds": 1},
        # kept groups accumulate over rounds; a round with none kept; overflow in the last round
        {"rounds": [_round(g, [[1, 1, 1, 1], [0, 1, 1, 1]], tag=0), _round(g, all_right, tag=1),
                    _round(g, all_wrong, tag=2), _round(g, mixed4, tag=3), _round(g, mixed4, tag=4)],
         "batch_size": 3, "max_rounds": 8},
        # filled exactly at a round boundary: no further round is drawn
        {"rounds": [_round(g, [[0, 1], [1, 1]], tag=0), _round(g, [[1, 0], [0, 1]], tag=1),
                    _round(g, [[1, 0], [0, 1]], tag=2)], "batch_size": 3, "max_rounds": 5},
        # not enough informative groups within max_rounds
        {"rounds": [_round(g, mixed4, tag=0), _round(g, all_right, tag=1), _round(g, mixed4, tag=2)],
         "batch_size": 7, "max_rounds": 3},
        # only all-right and all-wrong groups (whose rewards still differ through the length penalty)
        {"rounds": [_round(g, all_right, t=8, tag=0), _round(g, all_wrong, t=8, tag=1)], "batch_size": 1,
         "max_rounds": 2},
        # a batch of one group, G = 8
        {"rounds": [_round(g, [[0] * 8, [0, 0, 0, 0, 0, 0, 0, 1]], t=6, tag=0)], "batch_size": 1, "max_rounds": 1},
    ]
    return cases


def build_cases() -> dict[str, list[dict]]:
    g = torch.Generator().manual_seed(20250318)
    return {"penalty": penalty_cases(g), "reward": reward_cases(g), "advantage": advantage_cases(g),
            "loss": loss_cases(g), "sampling": sampling_cases(g)}


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.save(build_cases(), out / "dapo_cases.pt")


if __name__ == "__main__":
    main()
