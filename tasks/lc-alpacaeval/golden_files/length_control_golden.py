"""Length-controlled AlpacaEval: the GLM of the judge's preferences and the length-controlled win rate."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lcae.annotations import Comparison, check_columns, output_length
from lcae.config import DifficultyConfig, GLMConfig
from lcae.glm import cross_entropy, logistic
from lcae.results import LCResult


def model_vs_baseline(annotations: pd.DataFrame, model: str, baseline: str) -> Comparison:
    """The judged comparisons of `model` with `baseline` in an annotations table (schema: `lcae.annotations`).

    Rows that compare other generators are ignored, and so are rows whose preference is NaN.

    Returns:
        Comparison: one entry per instruction, sorted by instruction id.
    Raises:
        ValueError: if a column is missing, if model == baseline, if a used row's preference lies outside
            [1, 2], if an instruction has more than one used row, or if no row is left.
    """
    check_columns(annotations)
    if model == baseline:
        raise ValueError("model and baseline must differ")
    first = (annotations["generator_1"] == baseline) & (annotations["generator_2"] == model)
    second = (annotations["generator_1"] == model) & (annotations["generator_2"] == baseline)
    rows = annotations[(first | second) & annotations["preference"].notna()]
    pref = rows["preference"].to_numpy(dtype=np.float64)
    if np.any((pref < 1.0) | (pref > 2.0)):
        raise ValueError("preferences must lie in [1, 2]")
    if rows["instruction"].duplicated().any():
        raise ValueError("an instruction has more than one annotation for this pair")
    if len(rows) == 0:
        raise ValueError(f"no annotated comparison of {model!r} with {baseline!r}")
    model_second = (rows["generator_2"] == model).to_numpy()
    len_1 = np.array([output_length(t) for t in rows["output_1"]], dtype=np.int64)
    len_2 = np.array([output_length(t) for t in rows["output_2"]], dtype=np.int64)
    order = np.argsort(rows["instruction"].to_numpy().astype(str), kind="stable")
    return Comparison(
        model=model,
        baseline=baseline,
        instructions=tuple(str(x) for x in rows["instruction"].to_numpy()[order]),
        win_prob=np.where(model_second, pref - 1.0, 2.0 - pref)[order],
        model_len=np.where(model_second, len_2, len_1)[order],
        baseline_len=np.where(model_second, len_1, len_2)[order],
    )


def glm_features(comparison: Comparison, difficulty: pd.Series, config: GLMConfig) -> np.ndarray:
    """The design matrix of Eq. (2) for one model's comparisons.

    Args:
        comparison: the model's comparisons with the baseline.
        difficulty: gamma_x by instruction id (float64), e.g. from `fit_instruction_difficulty`; it may cover
            more instructions than the comparison.
        config: the GLM's configuration.
    Returns:
        (n, 3) float64 array, one row per entry of `comparison`, the columns matching the coefficients
        (theta, phi, psi) of `GLMConfig`.
    Raises:
        ValueError: if fewer than two comparisons, if all length differences are equal, or if `difficulty`
            lacks an instruction of the comparison.
    """
    if len(comparison) < 2:
        raise ValueError("at least two comparisons are needed")
    missing = [x for x in comparison.instructions if x not in difficulty.index]
    if missing:
        raise ValueError(f"no difficulty for instructions {missing[:5]}")
    delta = (comparison.model_len - comparison.baseline_len).astype(np.float64)
    scale = np.std(delta, ddof=config.length_std_ddof)
    if not scale > 0:
        raise ValueError("the length differences have no spread")
    gamma = difficulty.loc[list(comparison.instructions)].to_numpy(dtype=np.float64)
    return np.stack([np.ones_like(delta), np.tanh(delta / scale), gamma], axis=1)


def fit_logistic(features: np.ndarray, targets: np.ndarray, l2: np.ndarray, max_iter: int, tol: float) -> np.ndarray:
    """L2-penalised logistic regression on soft targets, by Newton's method from zero coefficients.

    Args:
        features: (n, k) float64 design matrix.
        targets: (n,) float64 probabilities in [0, 1].
        l2: (k,) float64 non-negative penalty strength of each coefficient.
        max_iter: Newton iterations allowed.
        tol: convergence threshold on the largest absolute entry of the objective's gradient.
    Returns:
        (k,) float64 coefficients w minimising
        mean_i cross_entropy(targets_i, features_i . w) + 0.5 * sum_j l2_j * w_j**2.
    Raises:
        RuntimeError: if the gradient is not below `tol` after `max_iter` iterations.
    """
    x = np.asarray(features, dtype=np.float64)
    t = np.asarray(targets, dtype=np.float64)
    lam = np.asarray(l2, dtype=np.float64)
    n = x.shape[0]
    w = np.zeros(x.shape[1])
    for iteration in range(max_iter + 1):
        q = logistic(x @ w)
        grad = x.T @ (q - t) / n + lam * w
        if np.max(np.abs(grad)) <= tol:
            return w
        if iteration == max_iter:
            break
        hess = (x * (q * (1.0 - q))[:, None]).T @ x / n + np.diag(lam)
        w = w - np.linalg.solve(hess, grad)
    raise RuntimeError(f"Newton's method did not converge in {max_iter} iterations")


def fit_instruction_difficulty(
    annotations: pd.DataFrame, baseline: str, models: Sequence[str] | None, config: DifficultyConfig
) -> pd.Series:
    """The instruction difficulties gamma_x (see `DifficultyConfig`), fitted jointly on several models.

    Args:
        annotations: the annotations table.
        baseline: the baseline's generator name.
        models: the models to fit on; None means every generator other than the baseline that the table
            compares with it.
        config: the joint fit's configuration.
    Returns:
        float64 Series of gamma_x indexed by instruction id (sorted ascending), covering every instruction
        of the models' comparisons, named "difficulty".
    Raises:
        ValueError: as `model_vs_baseline` does for any of the models, or if there is no model.
        RuntimeError: as `fit_logistic`.
    """
    check_columns(annotations)
    if models is None:
        pairs = annotations[["generator_1", "generator_2"]].to_numpy().astype(str)
        others = {b if a == baseline else a for a, b in pairs if (a == baseline) != (b == baseline)}
        models = sorted(others)
    if len(models) == 0:
        raise ValueError("no model to fit the instruction difficulties on")
    comparisons = [model_vs_baseline(annotations, m, baseline) for m in models]
    instructions = sorted({x for c in comparisons for x in c.instructions})
    column = {x: i for i, x in enumerate(instructions)}
    n_models = len(comparisons)
    rows, targets = [], []
    for m, comp in enumerate(comparisons):
        block = np.zeros((len(comp), n_models + len(instructions)))
        block[:, m] = 1.0
        block[np.arange(len(comp)), [n_models + column[x] for x in comp.instructions]] = -1.0
        rows.append(block)
        targets.append(comp.win_prob)
    l2 = np.concatenate([np.zeros(n_models), np.full(len(instructions), config.l2_difficulty)])
    coef = fit_logistic(np.concatenate(rows), np.concatenate(targets), l2, config.max_iter, config.tol)
    return pd.Series(coef[n_models:], index=pd.Index(instructions, name="instruction"), name="difficulty")


def length_controlled_winrate(
    annotations: pd.DataFrame, model: str, baseline: str, difficulty: pd.Series, config: GLMConfig
) -> LCResult:
    """The raw and the length-controlled win rate (Eq. (3)) of `model` against `baseline`.

    Args:
        annotations: the annotations table.
        model, baseline: generator names.
        difficulty: gamma_x by instruction id, e.g. from `fit_instruction_difficulty`.
        config: the GLM's configuration.
    Returns:
        LCResult. When model == baseline nothing is fitted: n = 0, both win rates 50.0, coefficients 0.0.
    Raises:
        ValueError: as `model_vs_baseline` and `glm_features`.
        RuntimeError: as `fit_logistic`.
    """
    if model == baseline:
        return LCResult(model, baseline, 0, 50.0, 50.0, 0.0, 0.0, 0.0)
    comparison = model_vs_baseline(annotations, model, baseline)
    features = glm_features(comparison, difficulty, config)
    coef = fit_logistic(features, comparison.win_prob, np.asarray(config.l2()), config.max_iter, config.tol)
    controlled = features.copy()
    controlled[:, 1] = 0.0
    return LCResult(
        model=model,
        baseline=baseline,
        n=len(comparison),
        win_rate=100.0 * float(np.mean(comparison.win_prob)),
        lc_win_rate=100.0 * float(np.mean(logistic(controlled @ coef))),
        theta=float(coef[0]),
        phi=float(coef[1]),
        psi=float(coef[2]),
    )
