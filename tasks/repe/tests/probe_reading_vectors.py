"""Probe for repe/1: `reading_vectors` in repe/rep_reading.py. Runs in the sandbox; emits outputs only.

The fixture cases are compared with the reference's outputs (tests/expected/, outside the sandbox); the hand-checked
values and the properties are judged by the trusted checks in check_reading_vectors.py. Outputs that only a check
looks at (the old tests did not compare them with the reference) are marked compare="none"; inputs a check relies
on are compared with the reference's exactly, so they cannot be forged."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from repe.data import contrast_pairs, last_token_states, split_pairs
from repe.model import ModelConfig, TinyCausalLM
from repe.rep_reading import ReadingVectors, reading_vectors
from repe.scoring import heldout_pair_accuracy
from repe.synthetic import planted_pairs

CASES = torch.load(Path(__file__).parent / "fixtures" / "reading_cases.pt", weights_only=True)
FIELDS = ("directions", "explained_variance_ratio", "pair_accuracy")
ONLY_CHECKS = {"compare": "none"}


def pairs_from_differences(diffs, first_is_positive, offset=0.0):
    """One layer whose pair differences first - second are exactly `diffs` (second = a constant offset)."""
    d = torch.tensor(diffs, dtype=torch.float64)
    second = torch.full_like(d, offset)
    return (d + second)[None], second[None], torch.tensor(first_is_positive)


def fields(rv) -> dict:
    return {name: getattr(rv, name) for name in FIELDS}


def planted():
    return planted_pairs(num_layers=4, num_pairs=40, dim=12, concept_layers=[1, 3], strength=3.0, noise=0.3, seed=7)


# ---------------------------------------------------------------- hand-checked values (check file)


@case(rtol=0, atol=1e-12)
def hand_checked_two_components():
    first, second, fip = pairs_from_differences([[4.0, 3.0], [-2.0, 3.0], [1.0, 0.0]], [True, True, True], offset=0.5)
    return fields(reading_vectors(first, second, fip, n_components=2))


@case(rtol=0, atol=1e-12)
def hand_checked_orientation_flip():
    first, second, fip = pairs_from_differences([[5.0, 1.0], [-3.0, -3.0], [1.0, -1.0]], [True, True, False])
    return fields(reading_vectors(first, second, fip))


@case(rtol=0, atol=1e-12)
def orientation_maximises_accuracy_even_below_one_half():
    first, second, fip = pairs_from_differences([[2.0, 3.0], [1.0, 3.0], [0.0, 3.0], [0.0, 3.0], [-1.0, 3.0]], [True] * 5)
    return fields(reading_vectors(first, second, fip))


@case(params=[[True, True], [False, False]], ids=["firsts_positive", "firsts_negative"], rtol=0, atol=1e-12)
def orientation_tie_break_on_mean_projection(labels):
    first, second, fip = pairs_from_differences([[3.0, 0.0], [-1.0, 0.0]], labels)
    return fields(reading_vectors(first, second, fip))


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(CASES)), rtol=1e-8, atol=1e-8)
def matches_reference(k):
    c = CASES[k]
    rv = reading_vectors(c["first"], c["second"], c["first_is_positive"], n_components=c["n_components"])
    return {"is_reading_vectors": isinstance(rv, ReadingVectors), **fields(rv)}


# ---------------------------------------------------------------- properties (check file)


@case(rtol=0, atol=0, outputs={f: ONLY_CHECKS for f in FIELDS})
def recovers_planted_direction():
    p = planted()
    rv = reading_vectors(p["first"], p["second"], p["first_is_positive"])
    return {"concept": p["concept"], **fields(rv)}


@case(compare="none")
def orthonormal_components_and_sorted_ratios():
    p = planted()
    rv = reading_vectors(p["first"], p["second"], p["first_is_positive"], n_components=5)
    full = reading_vectors(p["first"], p["second"], p["first_is_positive"], n_components=12)
    return {**fields(rv), "full_ratio": full.explained_variance_ratio}


@case(compare="none")
def invariant_to_shared_offsets_scale_and_pair_order():
    p = planted()
    f, s, fip = p["first"], p["second"], p["first_is_positive"]
    offset = torch.randn(4, 1, 12, generator=torch.Generator().manual_seed(3), dtype=torch.float64) * 10
    perm = torch.randperm(40, generator=torch.Generator().manual_seed(4))
    return {
        "base": fields(reading_vectors(f, s, fip, n_components=3)),
        "offset": fields(reading_vectors(f + offset, s + offset, fip, n_components=3)),
        "scaled": fields(reading_vectors(2.5 * f, 2.5 * s, fip, n_components=3)),
        "permuted": fields(reading_vectors(f[:, perm], s[:, perm], fip[perm], n_components=3)),
        "swapped": fields(reading_vectors(s, f, ~fip, n_components=3)),
    }


@case(compare="none")
def labels_only_orient():
    p = planted()
    f, s, fip = p["first"], p["second"], p["first_is_positive"]
    return {"a": fields(reading_vectors(f, s, fip, n_components=2)),
            "b": fields(reading_vectors(f, s, ~fip, n_components=2))}


@case(compare="none")
def single_layer_and_low_precision_inputs():
    p = planted()
    f, s, fip = p["first"][1:2], p["second"][1:2], p["first_is_positive"]
    return {"a": reading_vectors(f.float(), s.float(), fip).directions,
            "b": reading_vectors(f.float().double(), s.float().double(), fip).directions}


@case(compare="none")
def reading_vectors_of_the_tiny_model_generalise():
    torch.manual_seed(0)
    model = TinyCausalLM(ModelConfig()).eval()
    layers = [1, 2, 3, 4]
    train, test = split_pairs(contrast_pairs(48, 6, 40, seed=1), 24)
    rv = reading_vectors(last_token_states(model, train.first, layers), last_token_states(model, train.second, layers),
                         train.first_is_positive)
    acc = heldout_pair_accuracy(rv.directions, last_token_states(model, test.first, layers),
                                last_token_states(model, test.second, layers), test.first_is_positive)
    return {"heldout_accuracy": acc, "ratio_sum": float(rv.explained_variance_ratio.sum())}


# ---------------------------------------------------------------- bad arguments: the reference raises ValueError


def _zeros():
    return torch.zeros(2, 4, 3), torch.ones(4, dtype=torch.bool)


def _wide():
    return torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(0))


@case
def rejects_zero_components():
    f, fip = _zeros()
    return {"result": fields(reading_vectors(f, f, fip, n_components=0))}


@case
def rejects_more_components_than_pairs_minus_one():
    f, fip = _zeros()
    return {"result": fields(reading_vectors(f, f, fip, n_components=4))}  # at most min(4 - 1, 3) = 3


@case(compare="none")
def accepts_components_up_to_pairs_minus_one():
    _, fip = _zeros()
    wide = _wide()
    return {"directions": reading_vectors(wide, -wide, fip[:3], n_components=2).directions}


@case
def rejects_more_components_than_pairs_minus_one_wide():
    _, fip = _zeros()
    wide = _wide()
    return {"result": fields(reading_vectors(wide, -wide, fip[:3], n_components=3))}  # at most min(3 - 1, 5) = 2


@case
def rejects_shape_mismatch():
    f, fip = _zeros()
    return {"result": fields(reading_vectors(f, torch.zeros(2, 4, 2), fip))}


@case
def rejects_two_dimensional_states():
    f, fip = _zeros()
    return {"result": fields(reading_vectors(f[0], f[0], fip))}
