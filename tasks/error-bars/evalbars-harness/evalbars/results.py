"""What an eval report holds: one summary per model and, for two models, their comparison."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """A confidence interval [low, high]."""

    low: float
    high: float


@dataclass(frozen=True)
class ModelSummary:
    """The eval result of one model.

    name: the model (the table's name).
    n_questions: number of questions.
    n_clusters: number of distinct cluster labels in the table, None when its questions carry no labels.
    mean: the eval score, the estimate of the model's mean score over the question universe.
    se: the standard error of `mean` that `ci` uses: clustered when the table has cluster labels and the
        config asks for clustered standard errors, otherwise equal to `se_clt`.
    se_clt: the standard error of `mean` from the Central Limit Theorem, ignoring any clusters.
    ci: confidence interval for the mean score at the config's confidence.
    within_var: estimate of the mean conditional variance of a sampled score given its question (the part of
        the score's variance that resampling reduces); 0.0 for a table of next-token probabilities; NaN when
        a question of a sampled table has fewer than two samples.
    between_var: estimate of the variance of the conditional mean score across questions, not truncated (it
        can come out negative); NaN whenever `within_var` is NaN.
    """

    name: str
    n_questions: int
    n_clusters: int | None
    mean: float
    se: float
    se_clt: float
    ci: Interval
    within_var: float
    between_var: float


@dataclass(frozen=True)
class Comparison:
    """Model A against model B on the same questions (paired).

    name_a, name_b: the two models.
    n_questions: number of questions both were scored on.
    diff: mean score of A minus mean score of B.
    se: standard error of `diff` from the paired analysis (clustered under the same rule as ModelSummary.se).
    se_unpaired: standard error of `diff` had the two models been scored on independent samples of questions,
        from the two models' standard errors `ModelSummary.se`.
    correlation: Pearson correlation, across questions, of the two models' question scores; NaN when either
        model's question scores are all equal.
    z: the z-statistic of `diff` with the standard error `se`; NaN when `se` is 0.
    p_value: two-sided p-value of the hypothesis that the two mean scores are equal, from `z`.
    ci: confidence interval for the difference at the config's confidence, from `se`.
    """

    name_a: str
    name_b: str
    n_questions: int
    diff: float
    se: float
    se_unpaired: float
    correlation: float
    z: float
    p_value: float
    ci: Interval


@dataclass(frozen=True)
class EvalReport:
    """The summaries of one or two models, and their comparison when there are two."""

    models: tuple[ModelSummary, ...]
    comparison: Comparison | None
