"""Hidden tests for massact.detect.find_massive_activations."""
import math
from pathlib import Path

import pytest
import torch

from massact.detect import MassiveActivation, find_massive_activations
from massact.model import TinyLM, TinyLMConfig
from massact.synthetic import Plant, planted_hidden_states

FIXTURES = Path(__file__).parent / "fixtures"


def as_tuples(records):
    return [(r.layer, r.batch, r.token, r.dim) for r in records]


def one(values, dtype=torch.float64):
    """A single layer holding one sequence given as a (seq_len, dim) nested list."""
    return [torch.tensor([values], dtype=dtype)]


# ---------------------------------------------------------------- hand-checked values


def test_hand_checked_single_sequence():
    h = one([[0.5, -1.0, 2.0, 0.25], [-300.0, 0.75, -0.5, 1.5]])
    # magnitudes sorted: 0.25 0.5 0.5 0.75 1 1.5 2 300 -> median = (0.75 + 1) / 2 = 0.875
    # -300: |h| = 300 > 100 and 300 >= 300 * 0.875 = 262.5 -> massive; ratio = 300 / 0.875 = 2400 / 7
    recs = find_massive_activations(h, abs_threshold=100.0, ratio_threshold=300.0)
    assert as_tuples(recs) == [(0, 0, 1, 0)]
    assert recs[0].value == -300.0
    assert recs[0].ratio == pytest.approx(342.857142857142857, rel=1e-12)  # 2400 / 7
    # 300 < 400 * 0.875 = 350 -> not massive any more
    assert find_massive_activations(h, abs_threshold=100.0, ratio_threshold=400.0) == []
    # 300 is not above an absolute threshold of 300 (strict inequality)
    assert find_massive_activations(h, abs_threshold=300.0, ratio_threshold=1.0) == []


def test_even_count_median_is_midpoint():
    h = one([[0.5, 1.5, 2.5, 400.0]])
    # median of 0.5 1.5 2.5 400 = (1.5 + 2.5) / 2 = 2, so the ratio of 400 is exactly 200
    recs = find_massive_activations(h, abs_threshold=100.0, ratio_threshold=200.0)
    assert as_tuples(recs) == [(0, 0, 0, 3)]
    assert recs[0].ratio == 200.0
    # 400 < 250 * 2 = 500: the lower median (1.5) would wrongly accept it, the upper one (2.5) reject the line above
    assert find_massive_activations(h, abs_threshold=100.0, ratio_threshold=250.0) == []


def test_odd_count_median():
    h = one([[0.5, 3.0, 1.0, -250.0, 2.0]])
    # median of 0.5 1 2 3 250 = 2 -> ratio 125
    recs = find_massive_activations(h, abs_threshold=100.0, ratio_threshold=125.0)
    assert as_tuples(recs) == [(0, 0, 0, 3)]
    assert recs[0].value == -250.0 and recs[0].ratio == 125.0
    assert find_massive_activations(h, abs_threshold=100.0, ratio_threshold=125.5) == []


def test_threshold_boundaries():
    # magnitudes 0.5 0.5 0.5 100: median (0.5 + 0.5) / 2 = 0.5, ratio of 100 = 200
    h = one([[0.5, -0.5], [0.5, 100.0]])
    assert find_massive_activations(h, abs_threshold=100.0, ratio_threshold=1.0) == []  # 100 is not > 100
    assert as_tuples(find_massive_activations(h, abs_threshold=99.5, ratio_threshold=200.0)) == [(0, 0, 1, 1)]  # 100 >= 200 * 0.5
    assert find_massive_activations(h, abs_threshold=99.5, ratio_threshold=200.5) == []


def test_default_thresholds_are_100_and_1000():
    # median of 0.001 (x5) and 100.5 is 0.001: ratio 100500, and 100.5 > 100 -> massive with the defaults
    h = one([[0.001, 0.001, 0.001], [0.001, 100.5, 0.001]])
    assert as_tuples(find_massive_activations(h)) == [(0, 0, 1, 1)]
    # median 0.125 and 125 / 0.125 = 1000 exactly: reaches the default ratio threshold
    h = one([[0.125, -0.125, 0.125], [0.125, 125.0, 0.125]])
    recs = find_massive_activations(h)
    assert as_tuples(recs) == [(0, 0, 1, 1)] and recs[0].ratio == 1000.0


def test_rejects_layers_that_are_not_3d():
    with pytest.raises(ValueError):
        find_massive_activations([torch.zeros(4, 8)])


def test_median_per_sequence_not_per_batch():
    h = [torch.tensor([[[1.0, 1.0, 1.0, 500.0]], [[200.0, 200.0, 200.0, 200.0]]], dtype=torch.float64)]
    # sequence 0: median 1 -> 500 is massive (ratio 500); sequence 1: median 200, nothing reaches 100 * 200.
    # A median pooled over the batch would be 200 and hide the activation of sequence 0.
    recs = find_massive_activations(h, abs_threshold=100.0, ratio_threshold=100.0)
    assert as_tuples(recs) == [(0, 0, 0, 3)]
    assert recs[0].ratio == 500.0


def test_median_over_the_whole_sequence_not_per_token():
    h = one([[150.0, -150.0, 150.0], [2.0, 2.0, -2.0]])
    # magnitudes 2 2 2 150 150 150 -> median (2 + 150) / 2 = 76; 150 >= 1.5 * 76 = 114 -> token 0 is massive,
    # ratio 150 / 76 = 75 / 38. A median taken per token (150 for token 0) would find nothing.
    recs = find_massive_activations(h, abs_threshold=100.0, ratio_threshold=1.5)
    assert as_tuples(recs) == [(0, 0, 0, 0), (0, 0, 0, 1), (0, 0, 0, 2)]
    assert [r.value for r in recs] == [150.0, -150.0, 150.0]
    assert [r.ratio for r in recs] == pytest.approx([1.973684210526315789] * 3, rel=1e-12)  # 75 / 38


def test_negative_activations_keep_sign():
    h = one([[0.1, -0.2, 0.3], [-4000.0, 0.2, 0.1]])
    # median of 0.1 0.1 0.2 0.2 0.3 4000 = 0.2 -> ratio 20000
    recs = find_massive_activations(h)
    assert recs == [MassiveActivation(0, 0, 1, 0, -4000.0, 20000.0)]


def test_zero_median_gives_infinite_ratio():
    h = one([[0.0, 0.0, 0.0], [0.0, 150.0, 0.0]])
    recs = find_massive_activations(h)
    assert as_tuples(recs) == [(0, 0, 1, 1)]
    assert recs[0].value == 150.0 and math.isinf(recs[0].ratio) and recs[0].ratio > 0
    assert find_massive_activations(one([[0.0, 0.0], [0.0, 50.0]])) == []  # below the absolute threshold


def test_mask_excludes_padding_from_candidates_and_median():
    h = one([[1.0, 1.0, 9000.0], [2.0, 2.0, 300.0], [0.0, 0.0, 0.0]])
    mask = torch.tensor([[0, 1, 1]])
    # real tokens 1 and 2: magnitudes 2 2 300 0 0 0 -> median (0 + 2) / 2 = 1, so 300 has ratio 300.
    # Token 0 is padding: its 9000 is no candidate and its values are not in the median.
    recs = find_massive_activations(h, abs_threshold=100.0, ratio_threshold=300.0, attention_mask=mask)
    assert as_tuples(recs) == [(0, 0, 1, 2)]
    assert recs[0].ratio == 300.0
    bool_mask = find_massive_activations(h, abs_threshold=100.0, ratio_threshold=300.0, attention_mask=mask.bool())
    assert as_tuples(bool_mask) == [(0, 0, 1, 2)]


def test_fully_padded_sequence_contributes_nothing():
    h = torch.full((1, 2, 3, 4), 0.5, dtype=torch.float64)
    h[0, 0] = 7000.0  # sequence 0 is padding only
    h[0, 1, 1, 3] = 800.0
    mask = torch.tensor([[0, 0, 0], [1, 1, 1]])
    recs = find_massive_activations(h, attention_mask=mask)
    assert as_tuples(recs) == [(0, 1, 1, 3)]
    assert recs[0].ratio == 1600.0  # 800 / median 0.5


# ---------------------------------------------------------------- differential (fixtures from the reference)


CASES = torch.load(FIXTURES / "massive_cases.pt", weights_only=True)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_matches_reference(k):
    c = CASES[k]
    h = c["hidden"]
    inp = list(h.unbind(0)) if c["as_list"] else h
    mask = c["mask"] if c["has_mask"] else None
    recs = find_massive_activations(inp, c["abs_threshold"], c["ratio_threshold"], attention_mask=mask)
    assert isinstance(recs, list)
    got = torch.tensor(as_tuples(recs), dtype=torch.long).reshape(-1, 4)
    assert torch.equal(got, c["index"])
    values = torch.tensor([r.value for r in recs], dtype=torch.float64)
    ratios = torch.tensor([r.ratio for r in recs], dtype=torch.float64)
    torch.testing.assert_close(values, c["value"], rtol=1e-12, atol=0)
    torch.testing.assert_close(ratios, c["ratio"], rtol=1e-9, atol=0)


def test_fixtures_exercise_the_interesting_cases():
    # guards the fixtures themselves: detections, empty results, masks and every input form are covered
    n = [len(c["value"]) for c in CASES]
    assert sum(n) >= 40 and n.count(0) >= 3
    assert any(c["has_mask"] for c in CASES) and any(c["as_list"] for c in CASES) and any(not c["as_list"] for c in CASES)
    assert any(bool((c["value"] < 0).any()) for c in CASES)


# ---------------------------------------------------------------- properties


def _random_states(seed, L=3, B=2, T=6, D=10):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(L, B, T, D, generator=g, dtype=torch.float64)
    idx = torch.randint(0, L * B * T * D, (6,), generator=g)
    h.view(-1)[idx] = torch.tensor([3000.0, -2500.0, 150.0, 800.0, -1200.0, 90.0], dtype=torch.float64)
    return h


def test_feature_permutation_equivariance():
    h = _random_states(0)
    perm = torch.randperm(h.shape[-1], generator=torch.Generator().manual_seed(1))
    base = find_massive_activations(h, 100.0, 100.0)
    permuted = find_massive_activations(h[..., perm], 100.0, 100.0)
    inv = {int(p): i for i, p in enumerate(perm)}
    expected = sorted((r.layer, r.batch, r.token, inv[r.dim], r.value, r.ratio) for r in base)
    assert [tuple(r) for r in permuted] == expected
    assert len(base) >= 3


def test_scale_equivariance():
    h = _random_states(2)
    base = find_massive_activations(h, 100.0, 100.0)
    scaled = find_massive_activations(h * 4.0, 400.0, 100.0)
    assert as_tuples(scaled) == as_tuples(base)
    assert [r.value for r in scaled] == [4.0 * r.value for r in base]
    assert [r.ratio for r in scaled] == pytest.approx([r.ratio for r in base], rel=1e-12)


def test_higher_ratio_threshold_gives_a_subset():
    h = _random_states(3)
    loose = as_tuples(find_massive_activations(h, 50.0, 10.0))
    strict = as_tuples(find_massive_activations(h, 50.0, 1000.0))
    assert set(strict) < set(loose)


def test_padding_is_the_same_as_removing_tokens():
    h = _random_states(4, B=1)
    extra = torch.full((3, 1, 2, 10), 4000.0, dtype=torch.float64)
    padded = torch.cat([h, extra], dim=2)
    mask = torch.tensor([[1] * 6 + [0, 0]])
    a = find_massive_activations(h, 100.0, 50.0)
    b = find_massive_activations(padded, 100.0, 50.0, attention_mask=mask)
    assert a == b and len(a) >= 3


def test_sorted_and_typed_output():
    h = _random_states(5)
    recs = find_massive_activations(list(h.unbind(0)), 100.0, 50.0)
    keys = as_tuples(recs)
    assert keys == sorted(keys) and len(keys) >= 3
    for r in recs:
        assert isinstance(r, MassiveActivation)
        assert all(type(x) is int for x in r[:4])
        assert type(r.value) is float and type(r.ratio) is float


def test_low_precision_and_grad_inputs():
    h = _random_states(6).to(torch.bfloat16).requires_grad_(True)
    recs = find_massive_activations(h, 100.0, 100.0)
    assert [r.value for r in recs] == [float(h.detach()[r.layer, r.batch, r.token, r.dim]) for r in recs]
    assert len(recs) >= 3


# ---------------------------------------------------------------- finds the planted effect


def test_finds_planted_activations_in_synthetic_states():
    plants = [Plant(layers=(1, 2), tokens=(0,), dims=(4, 9), value=500.0),
              Plant(layers=(3,), tokens=(3,), dims=(1,), value=-800.0)]
    h = planted_hidden_states(5, 2, 8, 16, plants, scale=0.1, seed=0)
    recs = find_massive_activations(h, abs_threshold=100.0, ratio_threshold=1000.0)
    expected = sorted([(l, b, 0, d) for l in (1, 2) for b in (0, 1) for d in (4, 9)] + [(3, b, 3, 1) for b in (0, 1)])
    assert as_tuples(recs) == expected
    assert [r.value for r in recs] == [500.0] * 8 + [-800.0] * 2


def test_finds_planted_activations_in_tiny_lm():
    torch.manual_seed(0)
    cfg = TinyLMConfig(massive_dims=(3, 11), massive_value=3000.0, massive_start=1, massive_end=4)
    model = TinyLM(cfg).eval()
    tokens = torch.randint(0, cfg.vocab_size, (3, 12))
    with torch.no_grad():
        _, hidden = model(tokens)
    recs = find_massive_activations(hidden)
    expected = [(l, b, 0, d) for l in (1, 2, 3) for b in range(3) for d in (3, 11)]
    assert as_tuples(recs) == expected
    assert all(abs(r.value - 3000.0) < 30.0 and r.ratio > 1000.0 for r in recs)
