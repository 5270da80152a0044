"""Error bars for evals: standard errors, confidence intervals and paired comparisons of per-question scores,
and the number of questions a comparison needs."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evalbars.config import PowerSpec, ReportConfig
from evalbars.results import Comparison, EvalReport, ModelSummary
from evalbars.stats import (critical_value, interval, normal_quantile, per_question_variance, sample_variance,
                            two_sided_p)
from evalbars.tables import ScoreTable


def question_scores(table: ScoreTable) -> np.ndarray:
    """The score of each question of `table`.

    Args:
        table: a score table (one or more answers per question).
    Returns:
        (n_questions,) float64, in the order of `table.question_ids`.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def standard_errors(values: np.ndarray, clusters: np.ndarray | None) -> tuple[float, float]:
    """Standard errors of the mean of per-question values.

    Args:
        values: (n,) float64 per-question values, n >= 2.
        clusters: None, or (n,) cluster labels of the questions.
    Returns:
        (se_clt, se): the Central Limit Theorem standard error, and the clustered standard error (equal to
        se_clt when `clusters` is None).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def variance_components(table: ScoreTable, values: np.ndarray) -> tuple[float, float]:
    """(within_var, between_var) of a table as ModelSummary defines them; `values` = question_scores(table)."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def summarize_model(table: ScoreTable, config: ReportConfig) -> ModelSummary:
    """The eval result of one model: its mean score, standard errors and confidence interval.

    Args:
        table: the model's scores.
        config: confidence level and whether to cluster.
    Returns:
        ModelSummary.
    Raises:
        ValueError: if the table has fewer than two questions.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def align(a: ScoreTable, b: ScoreTable) -> np.ndarray:
    """Row indices into `b` of the questions of `a`, in a's order.

    Raises:
        ValueError: if the two tables do not hold the same questions.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def shared_clusters(a: ScoreTable, b: ScoreTable, order: np.ndarray) -> np.ndarray | None:
    """The cluster labels of the questions (in a's order) from whichever table has them.

    Raises:
        ValueError: if both tables have labels and they group the questions differently.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def compare_models(a: ScoreTable, b: ScoreTable, config: ReportConfig) -> Comparison:
    """Paired comparison of model A with model B on the same questions.

    Args:
        a, b: the two models' tables; the rows of `b` may be in another order than those of `a`.
        config: confidence level and whether to cluster.
    Returns:
        Comparison (A minus B).
    Raises:
        ValueError: if the tables have fewer than two questions, do not hold the same questions, or assign a
            question to different clusters.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def build_report(tables: Sequence[ScoreTable], config: ReportConfig) -> EvalReport:
    """The report of one model, or of two models and their comparison (the first minus the second).

    Args:
        tables: one or two score tables of the same eval.
        config: confidence level and whether to cluster.
    Returns:
        EvalReport with one summary per table, and the comparison when there are two tables.
    Raises:
        ValueError: unless there are one or two tables (and as summarize_model / compare_models raise).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def sample_size(spec: PowerSpec) -> int:
    """The number of questions a paired comparison of two models needs (power analysis).

    Args:
        spec: effect to detect, significance level, power, variance components and answers per question.
    Returns:
        the minimum number of questions, an int >= 1.
    Raises:
        ValueError: if effect <= 0, alpha or power is outside (0, 1), a variance is negative or a k is below 1.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def detectable_effect(n_questions: int, omega2: float, sigma2_a: float, sigma2_b: float, alpha: float = 0.05,
                      power: float = 0.8, k_a: int = 1, k_b: int = 1) -> float:
    """The minimum detectable effect of a paired comparison on `n_questions` questions.

    Args:
        n_questions: questions in the eval, >= 1.
        omega2, sigma2_a, sigma2_b, alpha, power, k_a, k_b: as in PowerSpec.
    Returns:
        the smallest difference in mean score detected with the given significance level and power.
    Raises:
        ValueError: if n_questions < 1, alpha or power is outside (0, 1), a variance is negative or a k is below 1.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def plan_from_pilot(a: ScoreTable, b: ScoreTable, effect: float, alpha: float = 0.05, power: float = 0.8,
                    k_a: int = 1, k_b: int = 1) -> PowerSpec:
    """The PowerSpec of a planned comparison of A with B, its variances estimated from a pilot eval.

    Args:
        a, b: the two models' scores on the pilot's questions (the rows of `b` may be in another order).
        effect, alpha, power: as in PowerSpec.
        k_a, k_b: answers per question the planned eval will sample from A and from B.
    Returns:
        PowerSpec whose variances are estimated from the pilot (an estimate below 0 is replaced by 0).
    Raises:
        ValueError: if the pilot tables have fewer than two questions or do not hold the same questions, or if
            a question of a sampled pilot table has fewer than two answers.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
