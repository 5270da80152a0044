"""Configuration of the length-controlled evaluation: every fitting choice the paper leaves to the code."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class GLMConfig:
    """The per-model GLM of Eq. (2) of paper.md, fitted to one model's comparisons with the baseline.

    The three coefficients are (theta, phi, psi) = (theta_m - theta_b, phi_{m,b}, psi_m - psi_b). They minimise
    the mean, over the model's instructions, of the cross-entropy between the judge's preference (a probability
    that the model's output is preferred) and the GLM's prediction, plus the L2 penalty
    0.5 * (l2_model * theta**2 + l2_length * phi**2 + l2_instruction * psi**2).
    """

    l2_model: float = 0.01  # L2 strength on theta (the model term)
    l2_length: float = 0.05  # L2 strength on phi (the length term)
    l2_instruction: float = 0.01  # L2 strength on psi (the instruction term)
    length_std_ddof: int = 1  # delta degrees of freedom of std(len(z_m) - len(z_b)) in Eq. (2)
    max_iter: int = 100  # Newton iterations allowed (see `fit_logistic`)
    tol: float = 1e-8  # convergence: largest absolute entry of the objective's gradient

    def l2(self) -> tuple[float, float, float]:
        """Penalty strengths in coefficient order (model, length, instruction)."""
        return (self.l2_model, self.l2_length, self.l2_instruction)


@dataclass(frozen=True)
class DifficultyConfig:
    """The instruction difficulties gamma_x, shared by all models and fitted once, jointly, on every model's
    comparisons with the baseline.

    The joint model predicts the judge's preference for model m on instruction x as logistic(theta_m - gamma_x)
    (a larger gamma_x: the baseline is preferred more often on x). theta (one per model) and gamma (one per
    instruction) minimise the mean, over all (model, instruction) comparisons, of the cross-entropy between the
    judge's preference and that prediction, plus 0.5 * l2_difficulty * sum_x gamma_x**2 (theta is not
    penalised).
    """

    l2_difficulty: float = 0.1  # L2 strength on every gamma_x
    max_iter: int = 100  # Newton iterations allowed (see `fit_logistic`)
    tol: float = 1e-8  # convergence: largest absolute entry of the objective's gradient


@dataclass(frozen=True)
class LeaderboardConfig:
    """A leaderboard run: which baseline, and how both fits are done."""

    baseline: str = "baseline"  # generator name of the baseline b
    glm: GLMConfig = field(default_factory=GLMConfig)
    difficulty: DifficultyConfig = field(default_factory=DifficultyConfig)
