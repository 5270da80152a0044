"""Distillation objectives: multi-scale and multi-period matching of the teacher's forecasts, plus features."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from timedistill.layers.multiscale import multi_scale_downsample


def multi_scale_loss(student: torch.Tensor, teacher: torch.Tensor, num_scales: int, window: int) -> torch.Tensor:
    """Sum over the pyramid levels ``m = 0..M`` of the mean squared error between student and teacher.

    Both inputs are ``(batch, T, channels)``; the teacher is treated as a constant target.
    """
    s_levels, _ = multi_scale_downsample(student, num_scales, window)
    t_levels, _ = multi_scale_downsample(teacher.detach(), num_scales, window)
    return sum(F.mse_loss(s, t) for s, t in zip(s_levels, t_levels))


def period_distribution(y: torch.Tensor, tau: float) -> torch.Tensor:
    """Softmax over frequencies ``1..T//2`` of the squared amplitude spectrum along time, divided by ``tau``.

    ``y (batch, T, channels)`` -> ``(batch, T//2, channels)``; the zero frequency (the mean) is left out.
    """
    amplitude = torch.fft.rfft(y, dim=1).abs()[:, 1:]
    return F.softmax(amplitude.pow(2) / tau, dim=1)


def multi_period_loss(student: torch.Tensor, teacher: torch.Tensor, tau: float = 0.5) -> torch.Tensor:
    """KL(teacher's period distribution || student's), averaged over batch and channels."""
    p_t = period_distribution(teacher.detach(), tau)
    log_p_s = torch.log(period_distribution(student, tau).clamp_min(1e-12))
    kl = (p_t * (torch.log(p_t.clamp_min(1e-12)) - log_p_s)).sum(dim=1)
    return kl.mean()


@dataclass
class DistillConfig:
    alpha: float = 0.5   # weight of the prediction-level distillation
    beta: float = 0.1    # weight of the feature-level distillation
    num_scales: int = 2
    window: int = 2
    tau: float = 0.5


def distillation_loss(
    student_pred: torch.Tensor,
    student_hidden: torch.Tensor,
    teacher_pred: torch.Tensor,
    teacher_hidden: torch.Tensor,
    target: torch.Tensor,
    cfg: DistillConfig,
) -> dict[str, torch.Tensor]:
    """Supervised MSE + alpha * (multi-scale + multi-period on forecasts) + beta * feature MSE."""
    sup = F.mse_loss(student_pred, target)
    scale = multi_scale_loss(student_pred, teacher_pred, cfg.num_scales, cfg.window)
    period = multi_period_loss(student_pred, teacher_pred, cfg.tau)
    feature = F.mse_loss(student_hidden, teacher_hidden.detach())
    total = sup + cfg.alpha * (scale + period) + cfg.beta * feature
    return {"total": total, "sup": sup, "scale": scale, "period": period, "feature": feature}
