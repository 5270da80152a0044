"""Contextual calibration (Section 5 of the paper): estimate the model's bias from content-free inputs and undo
it with an affine transformation of the label probabilities."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from calib.config import CalibConfig
from calib.model import TinyLM
from calib.prompts import Template
from calib.results import Classification
from calib.tokenizer import Tokenizer


def label_probs(model: TinyLM, tokenizer: Tokenizer, template: Template, prompt: str) -> torch.Tensor:
    """The model's probabilities of the classes for a prompt (`Template.build_prompt`), encoded by
    `tokenizer.encode` with its default <bos>.

    Returns:
        (num_classes,) float64, summing to 1.
    """
    logprobs = model.next_token_logprobs(tokenizer.encode(prompt))
    p = torch.exp(logprobs[template.label_ids(tokenizer)])
    return p / p.sum()


def content_free_probs(model: TinyLM, tokenizer: Tokenizer, template: Template, demos: Sequence[tuple[str, int]],
                       cfg: CalibConfig) -> torch.Tensor:
    """The content-free estimate of the model's class probabilities for these demonstrations.

    Returns:
        (num_classes,) float64, summing to 1.
    """
    probs = torch.stack([label_probs(model, tokenizer, template, template.build_prompt(demos, text))
                         for text in cfg.content_free])
    mean = probs.mean(dim=0)
    return mean / mean.sum()


def calibration_params(p_cf: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The calibration parameters (W, b) for a content-free estimate p_cf of shape (num_classes,).

    Returns:
        W: (num_classes, num_classes) and b: (num_classes,), float64.
    """
    p_cf = p_cf.to(torch.float64)
    return torch.diag(1.0 / p_cf), torch.zeros_like(p_cf)


def calibrate(probs: torch.Tensor, W: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Calibrated class probabilities.

    Args:
        probs: (..., num_classes) class probabilities.
        W, b: the calibration parameters.

    Returns:
        (..., num_classes) float64.
    """
    return torch.softmax(probs.to(torch.float64) @ W.T + b, dim=-1)


def classify(model: TinyLM, tokenizer: Tokenizer, template: Template, demos: Sequence[tuple[str, int]],
             queries: Sequence[str], cfg: CalibConfig, calibrated: bool = True) -> Classification:
    """Few-shot classification of each query with the demonstrations `demos` (in that order) in the prompt.

    Args:
        calibrated: apply contextual calibration; otherwise the plain label probabilities are used.

    Returns:
        The `Classification` (predictions: the most probable class, the lowest index on a tie).
    """
    probs = torch.stack([label_probs(model, tokenizer, template, template.build_prompt(demos, q)) for q in queries])
    p_cf = None
    if calibrated:
        p_cf = content_free_probs(model, tokenizer, template, demos, cfg)
        W, b = calibration_params(p_cf)
        probs = calibrate(probs, W, b)
    return Classification(probs, torch.argmax(probs, dim=-1), p_cf)
