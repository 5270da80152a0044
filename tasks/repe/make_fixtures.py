"""Regenerate tests/fixtures from the reference: python make_fixtures.py OUT_DIR (cwd = repo with reference).

Writes OUT_DIR/reading_cases.pt: 24 cases of inputs and options only (the reference's outputs are computed by the
probe and stored outside the sandbox, in tests/expected/). Deterministic."""
import sys
from pathlib import Path

import torch

from repe.rep_reading import reading_vectors
from repe.synthetic import planted_pairs


def make_case(i: int, g: torch.Generator) -> dict:
    r = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=g))  # noqa: E731
    L, N, d = r(1, 4), r(3, 24), r(2, 12)
    if i == 0:
        L, N, d = 1, 3, 2  # the smallest sensible problem
    k = r(1, min(N - 1, d, 3))
    if i % 2 == 0:
        concept_layers = [l for l in range(L) if torch.rand(1, generator=g) < 0.6]
        data = planted_pairs(L, N, d, concept_layers, strength=float(1 + 3 * torch.rand(1, generator=g)),
                             noise=0.5, seed=1000 + i)
        first, second, fip = data["first"], data["second"], data["first_is_positive"]
    else:
        # anisotropic Gaussian states (well separated principal axes) plus a per-pair offset
        scales = torch.linspace(3.0, 0.3, d, dtype=torch.float64)
        first = torch.randn(L, N, d, generator=g, dtype=torch.float64) * scales
        second = torch.randn(L, N, d, generator=g, dtype=torch.float64) * scales
        shared = torch.randn(L, 1, d, generator=g, dtype=torch.float64) * 5.0  # a common offset of both members
        first, second = first + shared, second + shared + 0.7  # a systematic difference: the mean is not zero
        fip = torch.rand(N, generator=g) < 0.5
    if i % 3 == 2:
        first, second = first.float(), second.float()
    return {"first": first, "second": second, "first_is_positive": fip, "n_components": k}


def check_coverage(cases: list[dict]) -> None:
    """The fixtures must cover perfect and partial accuracy (flips), float32 inputs and several components.

    This was a hidden test (`test_fixtures_cover_flips_and_partial_accuracy`) that looked only at the stored
    reference outputs; it guards the fixture set, so it runs here, with the reference, and saves nothing."""
    accs = torch.cat([reading_vectors(c["first"], c["second"], c["first_is_positive"],
                                      n_components=c["n_components"]).pair_accuracy.flatten() for c in cases])
    covered = (accs == 1.0).any() and (accs < 0.9).any()
    covered = covered and any(c["first"].dtype == torch.float32 for c in cases)
    if not (covered and any(c["n_components"] > 1 for c in cases)):
        raise SystemExit("fixtures do not cover perfect and partial accuracy, float32 inputs and several components")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(2023)
    cases = [make_case(i, g) for i in range(24)]
    check_coverage(cases)
    torch.save(cases, out / "reading_cases.pt")
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
