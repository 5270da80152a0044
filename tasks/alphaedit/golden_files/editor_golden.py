"""AlphaEdit: null-space constrained locate-then-edit knowledge editing of TinyLM's MLP output matrices."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from alphaedit.config import EditConfig
from alphaedit.data import EditBatch, TokenCorpus
from alphaedit.hooks import block_outputs, mlp_keys, rewrite_module
from alphaedit.model import TinyLM
from alphaedit.target_hidden import compute_target_hidden


@dataclass
class EditorState:
    """What the editor keeps between sequential edit batches, per edited layer.

    projectors: layer -> P, (d_mlp, d_mlp), the projector onto the null space of that layer's preserved keys.
    prev_cov: layer -> K_p K_p^T, (d_mlp, d_mlp), over the keys of every request written into that layer so far.
    """

    projectors: dict[int, torch.Tensor]
    prev_cov: dict[int, torch.Tensor]


def preserved_key_covariance(model: TinyLM, layer: int, corpus: TokenCorpus, batch_size: int) -> torch.Tensor:
    """K0 K0^T at `layer`, where the columns of K0 are the keys of every real (non-padding) token of `corpus`.

    Args:
        model: the model whose keys are read (not modified).
        layer: the block whose MLP keys are collected.
        corpus: the preserved knowledge; `corpus.mask` marks the real tokens.
        batch_size: sequences run through the model at once.
    Returns:
        (d_mlp, d_mlp) tensor in the dtype of the model's weights.
    Raises:
        ValueError: if the corpus has no real token.
    """
    weight = rewrite_module(model, layer).weight
    if not bool(corpus.mask.any()):
        raise ValueError("the preserved corpus has no token")
    cov = torch.zeros(weight.shape[1], weight.shape[1], dtype=weight.dtype)
    for part in corpus.batches(batch_size):
        keys = mlp_keys(model, part.tokens, layer)[part.mask]
        cov += keys.T @ keys
    return cov


def null_space_projector(cov: torch.Tensor, threshold: float) -> torch.Tensor:
    """The projector P onto the null space of K0 K0^T (Eqs. (6)-(7) of paper.md).

    Args:
        cov: K0 K0^T, (d0, d0), symmetric positive semi-definite, float32 or float64.
        threshold: eigenvalues strictly below it count as zero.
    Returns:
        P, (d0, d0), same dtype as `cov`.
    Raises:
        ValueError: if `cov` is not a square matrix or `threshold` is not positive.
    """
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"cov must be a square matrix, got {tuple(cov.shape)}")
    if threshold <= 0:
        raise ValueError("threshold must be positive")
    eigenvalues, eigenvectors = torch.linalg.eigh(cov)
    null = eigenvectors[:, eigenvalues < threshold]
    return null @ null.T


def init_editor_state(model: TinyLM, corpus: TokenCorpus, cfg: EditConfig) -> EditorState:
    """The editor's state before the first edit: a projector for each layer of `cfg.layers` from the preserved
    keys of `corpus`, and no previously edited keys.

    Returns:
        EditorState with one entry per layer of `cfg.layers` in each dict, (d_mlp, d_mlp) tensors in the
        dtype of the model's weights.
    """
    projectors, prev_cov = {}, {}
    for layer in cfg.layers:
        cov = preserved_key_covariance(model, layer, corpus, cfg.cov_batch_size)
        projectors[layer] = null_space_projector(cov, cfg.nullspace_threshold)
        prev_cov[layer] = torch.zeros_like(cov)
    return EditorState(projectors, prev_cov)


def alphaedit_delta(resid: torch.Tensor, keys: torch.Tensor, projector: torch.Tensor, prev_cov: torch.Tensor,
                    reg_weight: float) -> torch.Tensor:
    """The AlphaEdit update of one layer's weight matrix (Eq. (9) of paper.md).

    Args:
        resid: R, (d1, u), the residuals the update should write for the u keys.
        keys: K1, (d0, u), the keys of the edited knowledge at this layer.
        projector: P, (d0, d0).
        prev_cov: K_p K_p^T, (d0, d0), of the keys edited into this layer before.
        reg_weight: the coefficient of the regularisation term (`EditConfig.reg_weight`).
    Returns:
        The update to add to the layer's weight W, (d1, d0), in the dtype of the inputs.
    Raises:
        ValueError: on inconsistent shapes or a non-positive `reg_weight`.
    """
    d0, u = keys.shape
    if resid.ndim != 2 or resid.shape[1] != u or projector.shape != (d0, d0) or prev_cov.shape != (d0, d0):
        raise ValueError("inconsistent shapes of resid, keys, projector and prev_cov")
    if reg_weight <= 0:
        raise ValueError("reg_weight must be positive")
    eye = torch.eye(d0, dtype=keys.dtype)
    lhs = (prev_cov + keys @ keys.T) @ projector + reg_weight * eye
    rhs = resid @ keys.T @ projector
    return torch.linalg.solve(lhs.T, rhs.T).T


def apply_edits(model: TinyLM, batch: EditBatch, state: EditorState, cfg: EditConfig) -> dict[int, torch.Tensor]:
    """Write one batch of edit requests into the layers `cfg.layers` of `model` (Sections 2.3, 3.3 and 3.4).

    Args:
        model: edited in place: the weight of `rewrite_module(model, l)` of each edited layer l changes.
        batch: the u requests.
        state: from `init_editor_state` (or a previous call); `state.prev_cov` is updated in place so that
            it includes this batch.
        cfg: the layers and hyper-parameters.
    Returns:
        layer -> the update added to that layer's weight, (d_model, d_mlp), for each layer of `cfg.layers`.
    Raises:
        ValueError: if `state` has no projector for a layer of `cfg.layers`.
    """
    missing = [layer for layer in cfg.layers if layer not in state.projectors or layer not in state.prev_cov]
    if missing:
        raise ValueError(f"the editor state has no entry for layers {missing}")
    last = cfg.layers[-1]
    z = compute_target_hidden(model, batch, last, cfg)
    deltas: dict[int, torch.Tensor] = {}
    for i, layer in enumerate(cfg.layers):
        keys = mlp_keys(model, batch.tokens, layer, batch.subject_pos).T
        current = block_outputs(model, batch.tokens, last, batch.subject_pos)
        resid = (z - current).T / (len(cfg.layers) - i)
        delta = alphaedit_delta(resid, keys, state.projectors[layer], state.prev_cov[layer], cfg.reg_weight)
        with torch.no_grad():
            rewrite_module(model, layer).weight.add_(delta)
        state.prev_cov[layer] = state.prev_cov[layer] + keys @ keys.T
        deltas[layer] = delta
    return deltas
