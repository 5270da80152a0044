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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError
