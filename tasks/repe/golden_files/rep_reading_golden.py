"""Reading vectors: directions in hidden space found from contrast pairs of stimuli."""
from __future__ import annotations

from typing import NamedTuple

import torch


class ReadingVectors(NamedTuple):
    directions: torch.Tensor  # (num_layers, n_components, hidden_dim), unit-norm rows
    explained_variance_ratio: torch.Tensor  # (num_layers, n_components)
    pair_accuracy: torch.Tensor  # (num_layers, n_components)


def reading_vectors(
    first: torch.Tensor,
    second: torch.Tensor,
    first_is_positive: torch.Tensor,
    n_components: int = 1,
) -> ReadingVectors:
    """Reading vectors of every layer by PCA on the re-centred differences of paired hidden states.

    For layer l with the pairs' hidden states x_i = first[l, i] and y_i = second[l, i] (i = 1..N):

    1. differences d_i = x_i - y_i (the order inside a pair is arbitrary, see `first_is_positive`);
    2. re-centre them: c_i = d_i - mean_j d_j;
    3. PCA of the rows c_i: with the SVD C = U S V^T (singular values in decreasing order), the components
       are the first `n_components` right singular vectors v_1, v_2, ... (unit norm), and the explained
       variance ratio of v_k is S_k^2 / sum_j S_j^2;
    4. orient each component with the labels: with p_i = (positive member - negative member) of pair i,
       i.e. p_i = d_i if first_is_positive[i] else -d_i, the accuracy of a direction v is the fraction of
       pairs with p_i . v > 0 (exactly 0 counts as a miss). Keep v or replace it by -v, whichever has the
       higher accuracy; if both are equal, keep the one whose mean projection mean_i p_i . v is >= 0.

    Args:
        first, second: (num_layers, num_pairs, hidden_dim) hidden states of the two stimuli of each pair,
            layer by layer. Any floating dtype; everything is computed in float64.
        first_is_positive: (num_pairs,) bool, True where `first` holds the positive stimulus of the pair.
        n_components: number of principal components per layer, 1 <= n_components <= min(num_pairs - 1,
            hidden_dim) (re-centring leaves at most num_pairs - 1 non-zero singular values).

    Returns:
        ReadingVectors(directions (num_layers, n_components, hidden_dim), explained_variance_ratio
        (num_layers, n_components), pair_accuracy (num_layers, n_components): the accuracy of each
        oriented direction on these pairs), all float64.

    Raises:
        ValueError: if `first` and `second` are not 3-D tensors of the same shape, or `n_components` is out
            of range.
    """
    first, second = (t.detach().to(torch.float64) for t in (first, second))
    if first.dim() != 3 or first.shape != second.shape:
        raise ValueError("first and second must both be (num_layers, num_pairs, hidden_dim)")
    _, num_pairs, dim = first.shape
    if not 1 <= n_components <= min(num_pairs - 1, dim):
        raise ValueError("n_components is out of range")
    orient = torch.where(first_is_positive.bool(), 1.0, -1.0).to(torch.float64)

    directions, ratios, accuracies = [], [], []
    for x, y in zip(first, second):
        diff = x - y
        centred = diff - diff.mean(dim=0)
        _, s, vh = torch.linalg.svd(centred)
        comps = vh[:n_components]
        ratios.append(s[:n_components] ** 2 / (s**2).sum())
        proj = (orient[:, None] * diff) @ comps.T  # (num_pairs, n_components): p_i . v
        up = (proj > 0).to(torch.float64).mean(dim=0)
        down = (proj < 0).to(torch.float64).mean(dim=0)
        flip = (down > up) | ((down == up) & (proj.mean(dim=0) < 0))
        directions.append(torch.where(flip[:, None], -comps, comps))
        accuracies.append(torch.where(flip, down, up))
    return ReadingVectors(torch.stack(directions), torch.stack(ratios), torch.stack(accuracies))


def project(states: torch.Tensor, directions: torch.Tensor) -> torch.Tensor:
    """Scores of hidden states on reading vectors: (num_layers, batch, hidden_dim) x
    (num_layers, n_components, hidden_dim) -> (num_layers, batch, n_components)."""
    return torch.einsum("lbd,lkd->lbk", states.to(torch.float64), directions.to(torch.float64))
