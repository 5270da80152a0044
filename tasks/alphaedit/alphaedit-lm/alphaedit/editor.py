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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


def init_editor_state(model: TinyLM, corpus: TokenCorpus, cfg: EditConfig) -> EditorState:
    """The editor's state before the first edit: a projector for each layer of `cfg.layers` from the preserved
    keys of `corpus`, and no previously edited keys.

    Returns:
        EditorState with one entry per layer of `cfg.layers` in each dict, (d_mlp, d_mlp) tensors in the
        dtype of the model's weights.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError
