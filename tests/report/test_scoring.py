import math

import pytest

from lmrbench.report.scoring import bootstrap_ci, pass_at_k


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 2, 1, 0.4),  # 1 - C(3,1)/C(5,1) = 1 - 3/5
        (5, 2, 2, 0.7),  # 1 - C(3,2)/C(5,2) = 1 - 3/10
        (5, 2, 3, 0.9),  # 1 - C(3,3)/C(5,3) = 1 - 1/10
        (5, 2, 4, 1.0),  # n - c < k: some draw always contains a pass
        (5, 0, 3, 0.0),
        (1, 1, 1, 1.0),
        (10, 3, 1, 0.3),  # pass@1 is the plain pass share
    ],
)
def test_pass_at_k_hand_values(n, c, k, expected):
    assert math.isclose(pass_at_k(n, c, k), expected, abs_tol=1e-12)


def test_pass_at_k_rejects_bad_arguments():
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)


def test_bootstrap_constant_values_have_zero_width():
    assert bootstrap_ci([0.5] * 10) == (0.5, 0.5)


def test_bootstrap_two_points():
    # means of 2 resampled values are 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4: the 95% interval is [0, 1]
    assert bootstrap_ci([0.0, 1.0]) == (0.0, 1.0)


def test_bootstrap_contains_mean_narrows_with_n_and_is_seeded():
    small = [1.0, 0.0] * 5
    large = [1.0, 0.0] * 200
    lo_s, hi_s = bootstrap_ci(small)
    lo_l, hi_l = bootstrap_ci(large)
    assert lo_s < 0.5 < hi_s and lo_l < 0.5 < hi_l
    assert hi_l - lo_l < hi_s - lo_s
    # with 400 values the interval is about mean +- 1.96 * sqrt(0.25/400) = 0.5 +- 0.049
    assert abs((hi_l - lo_l) / 2 - 0.049) < 0.01
    assert bootstrap_ci(small) == bootstrap_ci(small)
