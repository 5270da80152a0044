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


def _ev(iid, status, log_rule=None, cause=None):
    from lmrbench.records import Evaluation, LegacyVerdict

    legacy = None if log_rule is None else LegacyVerdict(log_rule=log_rule, strict=status == "passed", log_found=True)
    return Evaluation(instance_id=iid, task_id=iid.split("/")[0], index=1, model="m", sample=0, key=iid,
                      status=status, legacy=legacy, cause=cause)


def test_log_rule_figure_beside_strict_and_errors_apart():
    from lmrbench.report.bundle import ReportData, to_markdown
    from lmrbench.report.scoring import score_model

    evals = [_ev("a/1", "passed", True), _ev("b/1", "failed", True),  # b: 'Passed' logged, exit code 1
             _ev("c/1", "error", cause="missing_module"), _ev("d/1", "failed", False)]
    s = score_model("run", "m", evals, [], [], None)
    # strict: a only = 1/4; log rule: a and b = 2/4; c never ran, so it passes neither
    assert s.pass_rate.value == 0.25 and s.log_rule_rate is not None and s.log_rule_rate.value == 0.5
    assert s.log_rule_differs == ["b/1#0"]
    assert s.error_causes == {"missing_module": 1} and s.unmeasured == ["c/1: missing_module"]
    md = to_markdown(ReportData(runs=["run"], scores=[s], drills=[], agreement=[]))
    assert "| m | 25.0% | 50.0% | b/1#0 |" in md and "c/1: missing_module" in md


def test_no_log_rule_figure_for_our_layout():
    from lmrbench.report.scoring import score_model

    s = score_model("run", "m", [_ev("a/1", "passed")], [], [], None)
    assert s.log_rule_rate is None and s.error_causes == {}
