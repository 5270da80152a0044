"""Configuration of an eval report and of a sample-size calculation."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReportConfig:
    """How `errorbars.build_report` summarises an eval.

    confidence: coverage of the confidence intervals it reports (0.95 gives 95% intervals).
    cluster_se: use clustered standard errors for a table whose questions carry cluster labels; when False the
        cluster labels are ignored.
    """

    confidence: float = 0.95
    cluster_se: bool = True


@dataclass(frozen=True)
class PowerSpec:
    """Inputs of a sample-size calculation for comparing two models on the same questions.

    effect: the smallest difference in mean score between the two models that the comparison should detect.
    alpha: significance level of the (two-sided) test.
    power: probability of detecting a true difference of size `effect`.
    omega2: variance, across questions, of the difference between the two models' conditional mean scores.
    sigma2_a: mean conditional (within-question) variance of model A's score.
    sigma2_b: mean conditional (within-question) variance of model B's score.
    k_a: answers sampled per question from model A.
    k_b: answers sampled per question from model B.
    """

    effect: float
    omega2: float
    sigma2_a: float
    sigma2_b: float
    alpha: float = 0.05
    power: float = 0.8
    k_a: int = 1
    k_b: int = 1
