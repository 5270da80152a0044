"""Scores for in-context learners and their decision boundaries."""
from __future__ import annotations

import numpy as np


def accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def label_image(labels: np.ndarray, resolution: int) -> np.ndarray:
    """Grid predictions (in `probe_grid` order) as a (resolution, resolution) image: row i = ys[i], column j = xs[j]."""
    return np.asarray(labels).reshape(resolution, resolution)


def boundary_roughness(image: np.ndarray) -> float:
    """Fraction of horizontally or vertically adjacent grid cells with different labels. A smooth boundary
    between two regions gives a value close to 0; a noisy, fragmented one a larger value."""
    h = image[:, 1:] != image[:, :-1]
    v = image[1:, :] != image[:-1, :]
    return float((h.sum() + v.sum()) / (h.size + v.size))


def render(image: np.ndarray) -> str:
    """Text drawing of a label image, highest ys on top."""
    return "\n".join("".join(".#"[int(c)] for c in row) for row in image[::-1])
