"""Hidden tests for repe.rep_reading.reading_vectors."""
import math
from pathlib import Path

import pytest
import torch

from repe.data import contrast_pairs, last_token_states, split_pairs
from repe.model import ModelConfig, TinyCausalLM
from repe.rep_reading import ReadingVectors, reading_vectors
from repe.scoring import heldout_pair_accuracy
from repe.synthetic import planted_pairs

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "reading_cases.pt", weights_only=True)


def pairs_from_differences(diffs, first_is_positive, offset=0.0):
    """One layer whose pair differences first - second are exactly `diffs` (second = a constant offset)."""
    d = torch.tensor(diffs, dtype=torch.float64)
    second = torch.full_like(d, offset)
    return (d + second)[None], second[None], torch.tensor(first_is_positive)


# ---------------------------------------------------------------- hand-checked values


def test_hand_checked_two_components():
    # differences d_i: (4, 3), (-2, 3), (1, 0); their mean is (1, 2), so the centred rows are
    # (3, 1), (-3, 1), (0, -2): C^T C = [[18, 0], [0, 6]] -> components e1 (18) and e2 (6), ratios 0.75 / 0.25.
    # All firsts are positive, so p_i = d_i: on e1 the projections 4, -2, 1 give accuracy 2/3 (flipping: 1/3);
    # on e2 the projections 3, 3, 0 give 2/3 (0 is a miss; flipping: 0).
    first, second, fip = pairs_from_differences([[4.0, 3.0], [-2.0, 3.0], [1.0, 0.0]], [True, True, True], offset=0.5)
    rv = reading_vectors(first, second, fip, n_components=2)
    torch.testing.assert_close(rv.directions, torch.tensor([[[1.0, 0.0], [0.0, 1.0]]], dtype=torch.float64), atol=1e-12, rtol=0)
    torch.testing.assert_close(rv.explained_variance_ratio, torch.tensor([[0.75, 0.25]], dtype=torch.float64), atol=1e-12, rtol=0)
    torch.testing.assert_close(rv.pair_accuracy, torch.tensor([[2 / 3, 2 / 3]], dtype=torch.float64), atol=1e-12, rtol=0)


def test_hand_checked_orientation_flip():
    # differences (5, 1), (-3, -3), (1, -1): mean (1, -1), centred rows (4, 2), (-4, -2), (0, 0) -> one axis +-(2, 1)/sqrt(5).
    # Pair 3 has its positive stimulus second, so p = (5, 1), (-3, -3), (-1, 1): on (2, 1)/sqrt(5) the signs are
    # +, -, - (accuracy 1/3), so the direction is flipped to (-2, -1)/sqrt(5) with accuracy 2/3.
    first, second, fip = pairs_from_differences([[5.0, 1.0], [-3.0, -3.0], [1.0, -1.0]], [True, True, False])
    rv = reading_vectors(first, second, fip)
    torch.testing.assert_close(rv.directions, torch.tensor([[[-0.894427190999916, -0.447213595499958]]], dtype=torch.float64),
                               atol=1e-12, rtol=0)  # (-2, -1) / sqrt(5)
    assert rv.explained_variance_ratio.item() == pytest.approx(1.0, abs=1e-12)
    assert rv.pair_accuracy.item() == pytest.approx(2 / 3, abs=1e-12)


def test_orientation_maximises_accuracy_even_below_one_half():
    # first coordinates of the differences 2, 1, 0, 0, -1; the second coordinate is constant (3) so it vanishes
    # after centring and the only axis is e1. p_i = d_i: 2 hits, 2 zeros (misses), 1 miss -> +e1 has accuracy 0.4,
    # -e1 has 0.2, so +e1 is kept even though 0.4 < 0.5.
    first, second, fip = pairs_from_differences([[2.0, 3.0], [1.0, 3.0], [0.0, 3.0], [0.0, 3.0], [-1.0, 3.0]], [True] * 5)
    rv = reading_vectors(first, second, fip)
    torch.testing.assert_close(rv.directions, torch.tensor([[[1.0, 0.0]]], dtype=torch.float64), atol=1e-12, rtol=0)
    assert rv.pair_accuracy.item() == pytest.approx(0.4, abs=1e-12)


@pytest.mark.parametrize("labels,expected", [([True, True], 1.0), ([False, False], -1.0)])
def test_orientation_tie_break_on_mean_projection(labels, expected):
    # differences (3, 0), (-1, 0): the only axis is e1. With both firsts positive, +e1 and -e1 each separate one
    # pair (accuracy 1/2); the mean projection on +e1 is (3 - 1) / 2 = 1 >= 0, so +e1 is chosen. With both firsts
    # negative, p = (-3, 0), (1, 0) and the mean projection on +e1 is -1, so -e1 is chosen.
    first, second, fip = pairs_from_differences([[3.0, 0.0], [-1.0, 0.0]], labels)
    rv = reading_vectors(first, second, fip)
    torch.testing.assert_close(rv.directions, torch.tensor([[[expected, 0.0]]], dtype=torch.float64), atol=1e-12, rtol=0)
    assert rv.pair_accuracy.item() == 0.5


# ---------------------------------------------------------------- differential (fixtures from the reference)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_matches_reference(k):
    c = CASES[k]
    rv = reading_vectors(c["first"], c["second"], c["first_is_positive"], n_components=c["n_components"])
    assert isinstance(rv, ReadingVectors)
    for name in ("directions", "explained_variance_ratio", "pair_accuracy"):
        got = getattr(rv, name)
        assert got.dtype == torch.float64, name
        torch.testing.assert_close(got, c[name], atol=1e-8, rtol=1e-8, msg=name)


def test_fixtures_cover_flips_and_partial_accuracy():
    accs = torch.cat([c["pair_accuracy"].flatten() for c in CASES])
    assert (accs == 1.0).any() and (accs < 0.9).any()
    assert any(c["first"].dtype == torch.float32 for c in CASES)
    assert any(c["n_components"] > 1 for c in CASES)


# ---------------------------------------------------------------- properties


@pytest.fixture(scope="module")
def planted():
    return planted_pairs(num_layers=4, num_pairs=40, dim=12, concept_layers=[1, 3], strength=3.0, noise=0.3, seed=7)


def test_recovers_planted_direction(planted):
    rv = reading_vectors(planted["first"], planted["second"], planted["first_is_positive"])
    for l in (1, 3):
        cos = float(rv.directions[l, 0] @ planted["concept"][l])
        assert cos > 0.98  # found with the right sign
        assert rv.pair_accuracy[l, 0] == 1.0
        assert rv.explained_variance_ratio[l, 0] > 0.5
    for l in (0, 2):  # no concept there: the top component explains much less
        assert rv.explained_variance_ratio[l, 0] < 0.4


def test_orthonormal_components_and_sorted_ratios(planted):
    rv = reading_vectors(planted["first"], planted["second"], planted["first_is_positive"], n_components=5)
    assert rv.directions.shape == (4, 5, 12)
    gram = rv.directions @ rv.directions.transpose(1, 2)
    torch.testing.assert_close(gram, torch.eye(5, dtype=torch.float64).expand(4, 5, 5), atol=1e-10, rtol=0)
    r = rv.explained_variance_ratio
    assert (r[:, :-1] >= r[:, 1:]).all() and (r.sum(dim=1) <= 1 + 1e-12).all()
    full = reading_vectors(planted["first"], planted["second"], planted["first_is_positive"], n_components=12)
    torch.testing.assert_close(full.explained_variance_ratio.sum(dim=1), torch.ones(4, dtype=torch.float64), atol=1e-12, rtol=0)


def test_invariant_to_shared_offsets_scale_and_pair_order(planted):
    f, s, fip = planted["first"], planted["second"], planted["first_is_positive"]
    base = reading_vectors(f, s, fip, n_components=3)
    offset = torch.randn(4, 1, 12, generator=torch.Generator().manual_seed(3), dtype=torch.float64) * 10
    perm = torch.randperm(40, generator=torch.Generator().manual_seed(4))
    for other in (
        reading_vectors(f + offset, s + offset, fip, n_components=3),  # a shared offset cancels in the differences
        reading_vectors(2.5 * f, 2.5 * s, fip, n_components=3),  # a positive scale changes nothing but magnitudes
        reading_vectors(f[:, perm], s[:, perm], fip[perm], n_components=3),  # the order of the pairs is irrelevant
        reading_vectors(s, f, ~fip, n_components=3),  # swapping the members and their labels
    ):
        torch.testing.assert_close(other.directions, base.directions, atol=1e-9, rtol=0)
        torch.testing.assert_close(other.explained_variance_ratio, base.explained_variance_ratio, atol=1e-12, rtol=0)
        torch.testing.assert_close(other.pair_accuracy, base.pair_accuracy, atol=0, rtol=0)


def test_labels_only_orient(planted):
    f, s, fip = planted["first"], planted["second"], planted["first_is_positive"]
    a = reading_vectors(f, s, fip, n_components=2)
    b = reading_vectors(f, s, ~fip, n_components=2)
    torch.testing.assert_close(b.directions, -a.directions, atol=1e-12, rtol=0)
    torch.testing.assert_close(b.explained_variance_ratio, a.explained_variance_ratio, atol=0, rtol=0)


def test_single_layer_and_low_precision_inputs(planted):
    f, s, fip = planted["first"][1:2], planted["second"][1:2], planted["first_is_positive"]
    a = reading_vectors(f.float(), s.float(), fip)
    b = reading_vectors(f.float().double(), s.float().double(), fip)
    assert a.directions.shape == (1, 1, 12) and a.directions.dtype == torch.float64
    torch.testing.assert_close(a.directions, b.directions, atol=1e-12, rtol=0)


def test_rejects_bad_arguments():
    f = torch.zeros(2, 4, 3)
    fip = torch.ones(4, dtype=torch.bool)
    with pytest.raises(ValueError):
        reading_vectors(f, f, fip, n_components=0)
    with pytest.raises(ValueError):
        reading_vectors(f, f, fip, n_components=4)  # at most min(4 - 1, 3) = 3
    wide = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(0))
    assert reading_vectors(wide, -wide, fip[:3], n_components=2).directions.shape == (2, 2, 5)
    with pytest.raises(ValueError):
        reading_vectors(wide, -wide, fip[:3], n_components=3)  # at most min(3 - 1, 5) = 2
    with pytest.raises(ValueError):
        reading_vectors(f, torch.zeros(2, 4, 2), fip)
    with pytest.raises(ValueError):
        reading_vectors(f[0], f[0], fip)


def test_reading_vectors_of_the_tiny_model_generalise():
    torch.manual_seed(0)
    model = TinyCausalLM(ModelConfig()).eval()
    layers = [1, 2, 3, 4]
    train, test = split_pairs(contrast_pairs(48, 6, 40, seed=1), 24)
    rv = reading_vectors(last_token_states(model, train.first, layers), last_token_states(model, train.second, layers),
                         train.first_is_positive)
    acc = heldout_pair_accuracy(rv.directions, last_token_states(model, test.first, layers),
                                last_token_states(model, test.second, layers), test.first_is_positive)
    assert (acc[:, 0] >= 0.9).all()
    assert not math.isnan(float(rv.explained_variance_ratio.sum()))
