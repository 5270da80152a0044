"""Regenerate tests/fixtures for gspo/1 (inputs and options only; the reference's outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/gspo_cases.pt: a dict of case lists, one list per target. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

F64 = torch.float64


def advantage_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n, grp in ((1, 2), (3, 4), (5, 16), (2, 7)):
        for dtype in (F64, torch.float32):
            for eps, unbiased in ((1e-6, True), (1e-6, False), (0.0, True), (0.1, False)):
                # binary rewards as the verifier gives them, mixed with graded ones in [0, 1]
                rewards = (torch.rand(n, grp, generator=g) < 0.4).to(F64)
                graded = torch.rand(n, grp, generator=g, dtype=F64) < 0.3
                rewards = torch.where(graded, torch.rand(n, grp, generator=g, dtype=F64), rewards)
                rewards[:, 0], rewards[:, 1] = 1.0, 0.0  # no group of equal rewards (0 / 0 when eps = 0)
                cases.append({"rewards": rewards.to(dtype), "eps": eps, "unbiased": unbiased})
    # groups whose rewards are all equal among mixed ones
    rewards = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.5], [0.0, 0.0, 0.0]], dtype=F64)
    cases.append({"rewards": rewards, "eps": 1e-6, "unbiased": True})
    return cases


def _mask(g: torch.Generator, lead: tuple[int, ...], t: int) -> torch.Tensor:
    lengths = torch.randint(1, t + 1, lead, generator=g)
    return torch.arange(t) < lengths.unsqueeze(-1)


def _logprobs(g: torch.Generator, shape: tuple[int, ...], spread: float, mask: torch.Tensor):
    """old and new log-probs; padded slots hold arbitrary finite junk (different in old and new)."""
    old = torch.log(torch.rand(shape, generator=g, dtype=F64) * 0.98 + 0.01)
    new = old + spread * torch.randn(shape, generator=g, dtype=F64)
    junk_old = 3.0 * torch.randn(shape, generator=g, dtype=F64)
    junk_new = 3.0 * torch.randn(shape, generator=g, dtype=F64)
    return torch.where(mask, new, junk_new), torch.where(mask, old, junk_old)


def ratio_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for shape in ((1,), (6,), (3, 5), (2, 4, 7), (1, 1, 1), (2, 3, 4, 9)):
        for dtype in (F64, torch.float32):
            mask = _mask(g, shape[:-1], shape[-1])
            new, old = _logprobs(g, shape, 0.3, mask)
            cases.append({"logprobs": new.to(dtype), "old_logprobs": old.to(dtype), "mask": mask})
    return cases


SETTINGS = ((1e-3, (3e-4, 4e-4)), (2e-3, (3e-4, 4e-4)), (0.3, (0.2, 0.27)), (0.05, (0.01, 0.03)))


def loss_cases(g: torch.Generator, token: bool) -> list[dict]:
    cases = []
    for n, grp, t in ((1, 1, 1), (1, 2, 3), (2, 4, 7), (3, 5, 11), (4, 8, 20), (2, 16, 6)):
        for spread, (eps_low, eps_high) in SETTINGS:
            for dtype in (F64, torch.float32):
                mask = _mask(g, (n, grp), t)
                new, old = _logprobs(g, (n, grp, t), spread, mask)
                adv = torch.randn((n, grp, t) if token else (n, grp), generator=g, dtype=F64)
                if token:
                    adv = torch.where(mask, adv, 5.0 * torch.randn(adv.shape, generator=g, dtype=F64))
                cases.append({"logprobs": new.to(dtype), "old_logprobs": old.to(dtype), "advantages": adv.to(dtype),
                              "mask": mask, "eps_low": eps_low, "eps_high": eps_high})
    return cases


def main(out_dir: str) -> None:
    g = torch.Generator().manual_seed(20250724)
    cases = {"advantage": advantage_cases(g), "ratio": ratio_cases(g), "loss": loss_cases(g, token=False),
             "token": loss_cases(g, token=True)}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "gspo_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
