"""Refusal directions: difference-in-means candidates, their selection, and the interventions that use them."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.utils.hooks import RemovableHandle

from .config import DirectionConfig
from .model import TinyChatLM

Batch = tuple[torch.Tensor, torch.Tensor]  # (input_ids, attention_mask), left-padded, as Tokenizer.encode_batch


@torch.no_grad()
def last_position_logits(model: TinyChatLM, batch: Batch) -> torch.Tensor:
    """Logits (batch, vocab) that the model gives for the first response token."""
    ids, mask = batch
    return model(ids, mask)[:, -1, :]


def candidate_directions(model: TinyChatLM, harmful: Batch, harmless: Batch, n_post: int) -> torch.Tensor:
    """Candidate refusal directions.

    Args:
        model: the chat model (not modified).
        harmful, harmless: (input_ids, attention_mask) batches of templated prompts, left-padded.
        n_post: number of post-instruction positions, the last n_post positions of every prompt.

    Returns:
        Tensor (n_post, n_layers, d_model) in the model's dtype; entry [i, l] belongs to position
        i - n_post (relative to the end of the prompt) and layer l.
    """
    names = [f"blocks.{l}.hook_resid_pre" for l in range(model.n_layers)]

    def means(batch: Batch) -> torch.Tensor:
        with torch.no_grad():
            _, cache = model.run_with_cache(batch[0], batch[1], names=names)
        acts = torch.stack([cache[n][:, -n_post:, :] for n in names], dim=2)  # (B, n_post, L, d)
        return acts.mean(dim=0)

    return means(harmful) - means(harmless)


def refusal_score(logits: torch.Tensor, refusal_ids: list[int]) -> torch.Tensor:
    """Refusal score of each prompt.

    Args:
        logits: (batch, seq, vocab) logits of left-padded prompts.
        refusal_ids: token ids of the refusal tokens.

    Returns:
        Tensor (batch,) in the logits' dtype, computed in it throughout (float32 or float64; no up- or down-cast).
    """
    last = logits[:, -1, :]
    is_refusal = torch.zeros(last.shape[1], dtype=torch.bool, device=last.device)
    is_refusal[refusal_ids] = True
    log_refuse = last[:, is_refusal].logsumexp(1)
    log_comply = last[:, ~is_refusal].logsumexp(1)
    return log_refuse - log_comply


def add_ablation_hooks(model: TinyChatLM, direction: torch.Tensor) -> list[RemovableHandle]:
    """Register forward hooks that apply directional ablation of `direction` (d_model,) to the model.

    Returns the handles; removing them restores the model."""
    unit = direction / direction.norm()

    def ablate(module, inputs, output):
        r = unit.to(output.dtype)
        return output - (output @ r).unsqueeze(-1) * r

    return [module.register_forward_hook(ablate) for _, module in model.hook_points()]


def add_addition_hooks(model: TinyChatLM, direction: torch.Tensor, layer: int) -> list[RemovableHandle]:
    """Register forward hooks that apply activation addition of `direction` (d_model,) at layer `layer`.

    Returns the handles; removing them restores the model."""

    def add(module, inputs, output):
        return output + direction.to(output.dtype)

    return [model.blocks[layer].hook_resid_pre.register_forward_hook(add)]


@torch.no_grad()
def orthogonalize_weights(model: TinyChatLM, direction: torch.Tensor) -> TinyChatLM:
    """Weight orthogonalization of the model with respect to `direction` (d_model,), in place.

    Returns the model."""
    r = (direction / direction.norm()).to(model.embed.weight.dtype)
    for emb in (model.embed, model.pos_embed):
        w = emb.weight  # (n, d_model): each row is written to the stream
        w -= (w @ r).unsqueeze(1) * r
    for block in model.blocks:
        for lin in (block.attn.out, block.mlp.down):
            w = lin.weight  # (d_model, d_in): output = w @ x
            w -= r.unsqueeze(1) * (r @ w).unsqueeze(0)
    return model


def select_direction(model: TinyChatLM, candidates: torch.Tensor, harmful_val: Batch, harmless_val: Batch,
                     refusal_ids: list[int], cfg: DirectionConfig) -> dict:
    """Select the refusal direction among the candidates.

    Args:
        model: the chat model (left unchanged).
        candidates: (n_post, n_layers, d_model) as returned by `candidate_directions`.
        harmful_val, harmless_val: validation batches.
        refusal_ids: token ids of the refusal tokens.
        cfg: selection settings.

    Returns:
        dict with "pos" (int, index into the first axis of candidates), "layer" (int), "direction" (the selected
        candidate, (d_model,)), and "bypass", "induce", "kl": float64 tensors (n_post, n_layers), the scores
        of every candidate; for a float64 model they are computed in float64 throughout (no down-cast).

    Raises:
        ValueError: if no candidate passes the filters.
    """
    def with_hooks(handles_fn, batch: Batch) -> torch.Tensor:
        handles = handles_fn()
        try:
            return last_position_logits(model, batch)
        finally:
            for h in handles:
                h.remove()

    n_post, n_layers, _ = candidates.shape
    bypass = torch.zeros(n_post, n_layers, dtype=torch.float64)
    induce = torch.zeros_like(bypass)
    kl = torch.zeros_like(bypass)
    base_logp = last_position_logits(model, harmless_val).double().log_softmax(1)
    for i in range(n_post):
        for l in range(n_layers):
            r = candidates[i, l]
            logits = with_hooks(lambda: add_ablation_hooks(model, r), harmful_val)
            bypass[i, l] = refusal_score(logits[:, None, :], refusal_ids).double().mean()
            logits = with_hooks(lambda: add_addition_hooks(model, r, l), harmless_val)
            induce[i, l] = refusal_score(logits[:, None, :], refusal_ids).double().mean()
            logp = with_hooks(lambda: add_ablation_hooks(model, r), harmless_val).double().log_softmax(1)
            kl[i, l] = (base_logp.exp() * (base_logp - logp)).sum(1).mean()
    max_layer = n_layers * (1 - cfg.prune_layer_fraction)
    best = None
    for i in range(n_post):
        for l in range(n_layers):
            if l >= max_layer or induce[i, l] <= cfg.induce_threshold or kl[i, l] >= cfg.kl_threshold:
                continue
            if best is None or bypass[i, l] < bypass[best]:
                best = (i, l)
    if best is None:
        raise ValueError("no candidate direction passes the filters")
    return {"pos": best[0], "layer": best[1], "direction": candidates[best].clone(),
            "bypass": bypass, "induce": induce, "kl": kl}
