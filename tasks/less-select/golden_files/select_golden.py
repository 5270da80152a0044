"""LESS: gradient features, influence scores and the selection of training data for target tasks."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from less.checkpoints import AdamState, Checkpoint
from less.data import Example
from less.model import TinyLoRALM


@dataclass(frozen=True)
class Selection:
    """The outcome of a selection.

    indices: (k,) int64 positions in the pool of the selected examples, best first.
    scores: (n,) the score of every pool example (the maximum over the subtasks).
    per_subtask: (n, J) the influence of every pool example on every subtask, columns in the subtasks' order.
    """

    indices: torch.Tensor
    scores: torch.Tensor
    per_subtask: torch.Tensor


def example_gradients(model: TinyLoRALM, examples: list[Example]) -> torch.Tensor:
    """Per-example gradients of the loss with respect to the trainable parameters, at the model's current values.

    Returns:
        (n, P) tensor in the model's dtype: row i is the gradient of model.loss(examples[i]), flattened and
        concatenated in the order of model.trainable_names(). The model's .grad fields are left untouched.
    """
    params = model.trainable_parameters()
    rows = []
    for example in examples:
        grads = torch.autograd.grad(model.loss(example), params)
        rows.append(torch.cat([g.reshape(-1) for g in grads]))
    return torch.stack(rows)


def adam_directions(grads: torch.Tensor, state: AdamState, names: list[str]) -> torch.Tensor:
    """The Adam update direction Gamma(z, theta) of Eq. (4) for each row of `grads`.

    Args:
        grads: (n, P) flattened per-example gradients (as `example_gradients` returns them).
        state: Adam's state at the checkpoint.
        names: the parameter names in flattening order (model.trainable_names()).
    Returns:
        (n, P) tensor, same dtype as `grads`.
    """
    m = torch.cat([state.exp_avg[n].reshape(-1) for n in names]).to(grads.dtype)
    v = torch.cat([state.exp_avg_sq[n].reshape(-1) for n in names]).to(grads.dtype)
    beta1, beta2 = state.betas
    t = state.step + 1
    m_next = (beta1 * m + (1 - beta1) * grads) / (1 - beta1**t)
    v_next = (beta2 * v + (1 - beta2) * grads**2) / (1 - beta2**t)
    return m_next / (v_next.sqrt() + state.eps)


def checkpoint_features(
    model: TinyLoRALM,
    checkpoint: Checkpoint,
    train: list[Example],
    validation: dict[str, list[Example]],
    projection: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The projected gradient features of the pool and of the validation subtasks at one checkpoint.

    Args:
        model: the model; its trainable parameters are set to the checkpoint's (and left so).
        checkpoint: theta_i with Adam's state.
        train: the pool of n candidate examples.
        validation: J subtasks, each a list of validation examples.
        projection: (P, d) projection matrix (less/projection.py).
    Returns:
        (n, d) features of the pool examples and (J, d) features of the subtasks (rows in the dict's order).
    """
    model.load_trainable(checkpoint.params)
    proj = projection.to(model.lora_A.dtype)
    train_feats = adam_directions(example_gradients(model, train), checkpoint.adam, model.trainable_names()) @ proj
    val_feats = torch.stack([(example_gradients(model, examples) @ proj).mean(dim=0)
                             for examples in validation.values()])
    return train_feats, val_feats


def influence_scores(train_feats: torch.Tensor, val_feats: torch.Tensor, lrs: torch.Tensor) -> torch.Tensor:
    """The influence of every pool example on every subtask, Eq. (7).

    Args:
        train_feats: (N, n, d) pool features, one slice per checkpoint.
        val_feats: (N, J, d) subtask features, one slice per checkpoint.
        lrs: (N,) the checkpoints' average learning rates.
    Returns:
        (n, J) tensor.
    """
    t = train_feats / train_feats.norm(dim=-1, keepdim=True)
    v = val_feats / val_feats.norm(dim=-1, keepdim=True)
    cos = torch.einsum("cnd,cjd->cnj", t, v)
    return torch.einsum("c,cnj->nj", lrs.to(cos.dtype), cos)


def less_select(
    model: TinyLoRALM,
    checkpoints: list[Checkpoint],
    train: list[Example],
    validation: dict[str, list[Example]],
    projection: torch.Tensor,
    fraction: float,
) -> Selection:
    """Select the pool examples most influential on the target subtasks (Section 2.3 of paper.md, steps 2 and 3).

    Args:
        model, train, validation, projection: as in `checkpoint_features`.
        checkpoints: the N warmup checkpoints.
        fraction: share of the pool to select: the max(1, floor(fraction * n)) highest scores; equal scores
            are ranked by position in the pool, lower first.
    Returns:
        Selection.
    Raises:
        ValueError: if there is no checkpoint, no subtask, an empty pool, or fraction is not in (0, 1].
    """
    if not checkpoints or not validation or not train or not 0.0 < fraction <= 1.0:
        raise ValueError("need checkpoints, subtasks, a non-empty pool and 0 < fraction <= 1")
    feats = [checkpoint_features(model, c, train, validation, projection) for c in checkpoints]
    lrs = torch.tensor([c.lr for c in checkpoints], dtype=torch.float64)
    per_subtask = influence_scores(torch.stack([f[0] for f in feats]), torch.stack([f[1] for f in feats]), lrs)
    scores = per_subtask.max(dim=1).values
    k = max(1, int(fraction * len(train)))
    order = sorted(range(len(train)), key=lambda i: (-float(scores[i]), i))
    return Selection(torch.tensor(order[:k], dtype=torch.int64), scores, per_subtask)
