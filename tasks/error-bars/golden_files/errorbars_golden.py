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
    counts = table.mask.sum(axis=1)
    totals = np.where(table.mask, table.scores, 0.0).sum(axis=1)
    return totals / counts


def standard_errors(values: np.ndarray, clusters: np.ndarray | None) -> tuple[float, float]:
    """Standard errors of the mean of per-question values.

    Args:
        values: (n,) float64 per-question values, n >= 2.
        clusters: None, or (n,) cluster labels of the questions.
    Returns:
        (se_clt, se): the Central Limit Theorem standard error, and the clustered standard error (equal to
        se_clt when `clusters` is None).
    """
    n = values.size
    var_clt = sample_variance(values) / n
    if clusters is None:
        return math.sqrt(var_clt), math.sqrt(var_clt)
    resid = values - values.mean()
    cross = 0.0
    for label in np.unique(clusters):
        r = resid[clusters == label]
        cross += float(r.sum() ** 2 - (r * r).sum())
    return math.sqrt(var_clt), math.sqrt(var_clt + cross / n**2)


def variance_components(table: ScoreTable, values: np.ndarray) -> tuple[float, float]:
    """(within_var, between_var) of a table as ModelSummary defines them; `values` = question_scores(table)."""
    between_total = sample_variance(values)
    if table.kind == "probability":
        return 0.0, between_total
    sigma2 = per_question_variance(table.scores, table.mask)
    if bool(np.isnan(sigma2).any()):
        return math.nan, math.nan
    counts = table.samples_per_question
    return float(sigma2.mean()), between_total - float((sigma2 / counts).mean())


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
    if table.n_questions < 2:
        raise ValueError("a standard error needs at least two questions")
    values = question_scores(table)
    clusters = table.clusters if config.cluster_se else None
    se_clt, se = standard_errors(values, clusters)
    mean = float(values.mean())
    within, between = variance_components(table, values)
    n_clusters = None if table.clusters is None else int(np.unique(table.clusters).size)
    return ModelSummary(name=table.name, n_questions=table.n_questions, n_clusters=n_clusters, mean=mean, se=se,
                        se_clt=se_clt, ci=interval(mean, se, config.confidence), within_var=within,
                        between_var=between)


def align(a: ScoreTable, b: ScoreTable) -> np.ndarray:
    """Row indices into `b` of the questions of `a`, in a's order.

    Raises:
        ValueError: if the two tables do not hold the same questions.
    """
    row_of = {q: i for i, q in enumerate(b.question_ids)}
    if set(row_of) != set(a.question_ids):
        raise ValueError("the two tables do not hold the same questions")
    return np.array([row_of[q] for q in a.question_ids], dtype=np.int64)


def shared_clusters(a: ScoreTable, b: ScoreTable, order: np.ndarray) -> np.ndarray | None:
    """The cluster labels of the questions (in a's order) from whichever table has them.

    Raises:
        ValueError: if both tables have labels and they group the questions differently.
    """
    b_labels = None if b.clusters is None else b.clusters[order]
    if a.clusters is None:
        return b_labels
    if b_labels is not None and not np.array_equal(a.clusters, b_labels):
        raise ValueError("the two tables put a question in different clusters")
    return a.clusters


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
    order = align(a, b)
    clusters = shared_clusters(a, b, order)
    summary_a = summarize_model(a, config)
    summary_b = summarize_model(b, config)
    va = question_scores(a)
    vb = question_scores(b)[order]
    diffs = va - vb
    _, se = standard_errors(diffs, clusters if config.cluster_se else None)
    diff = float(diffs.mean())
    ca, cb = va - va.mean(), vb - vb.mean()
    denom = math.sqrt(float((ca * ca).sum() * (cb * cb).sum()))
    correlation = float((ca * cb).sum()) / denom if denom > 0 else math.nan
    z = diff / se if se > 0 else math.nan
    return Comparison(name_a=a.name, name_b=b.name, n_questions=a.n_questions, diff=diff, se=se,
                      se_unpaired=math.sqrt(summary_a.se**2 + summary_b.se**2), correlation=correlation, z=z,
                      p_value=two_sided_p(z), ci=interval(diff, se, config.confidence))


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
    if len(tables) not in (1, 2):
        raise ValueError("a report covers one or two models")
    models = tuple(summarize_model(t, config) for t in tables)
    comparison = compare_models(tables[0], tables[1], config) if len(tables) == 2 else None
    return EvalReport(models=models, comparison=comparison)


def sample_size(spec: PowerSpec) -> int:
    """The number of questions a paired comparison of two models needs (power analysis).

    Args:
        spec: effect to detect, significance level, power, variance components and answers per question.
    Returns:
        the minimum number of questions, an int >= 1.
    Raises:
        ValueError: if effect <= 0, alpha or power is outside (0, 1), a variance is negative or a k is below 1.
    """
    if not spec.effect > 0:
        raise ValueError("the effect must be positive")
    if not (0 < spec.alpha < 1 and 0 < spec.power < 1):
        raise ValueError("alpha and power must lie in (0, 1)")
    if min(spec.omega2, spec.sigma2_a, spec.sigma2_b) < 0:
        raise ValueError("variances cannot be negative")
    if min(spec.k_a, spec.k_b) < 1:
        raise ValueError("at least one answer per question")
    z = critical_value(1 - spec.alpha) + normal_quantile(spec.power)
    variance = spec.omega2 + spec.sigma2_a / spec.k_a + spec.sigma2_b / spec.k_b
    return max(1, math.ceil(z**2 * variance / spec.effect**2))


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
    if n_questions < 1:
        raise ValueError("at least one question")
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError("alpha and power must lie in (0, 1)")
    if min(omega2, sigma2_a, sigma2_b) < 0:
        raise ValueError("variances cannot be negative")
    if min(k_a, k_b) < 1:
        raise ValueError("at least one answer per question")
    z = critical_value(1 - alpha) + normal_quantile(power)
    return z * math.sqrt((omega2 + sigma2_a / k_a + sigma2_b / k_b) / n_questions)


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
    order = align(a, b)
    if a.n_questions < 2:
        raise ValueError("a pilot needs at least two questions")
    diffs = question_scores(a) - question_scores(b)[order]
    noise = 0.0
    sigma2 = []
    for table, rows in ((a, np.arange(a.n_questions)), (b, order)):
        if table.kind == "probability":
            sigma2.append(0.0)
            continue
        per_question = per_question_variance(table.scores, table.mask)[rows]
        if bool(np.isnan(per_question).any()):
            raise ValueError(f"every question of {table.name} needs at least two answers")
        sigma2.append(float(per_question.mean()))
        noise += float((per_question / table.samples_per_question[rows]).mean())
    omega2 = max(0.0, sample_variance(diffs) - noise)
    return PowerSpec(effect=effect, omega2=omega2, sigma2_a=sigma2[0], sigma2_b=sigma2[1], alpha=alpha,
                     power=power, k_a=k_a, k_b=k_b)
