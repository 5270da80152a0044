"""Find the refusal direction of the tiny chat model and evaluate the interventions on held-out prompts."""
from __future__ import annotations

import copy

import torch

from refusal.config import DirectionConfig
from refusal.data import splits
from refusal.direction import (add_ablation_hooks, add_addition_hooks, candidate_directions, last_position_logits,
                               orthogonalize_weights, refusal_score, select_direction)
from refusal.model import TinyChatLM
from refusal.tokenizer import Tokenizer


def mean_score(model: TinyChatLM, batch, refusal_ids, hooks=()) -> float:
    try:
        logits = last_position_logits(model, batch)
    finally:
        for h in hooks:
            h.remove()
    return refusal_score(logits[:, None, :], refusal_ids).double().mean().item()


def run(model: TinyChatLM, tok: Tokenizer, cfg: DirectionConfig | None = None, seed: int = 0) -> dict:
    cfg = cfg or DirectionConfig()
    data = {name: (tok.encode_batch(h), tok.encode_batch(s)) for name, (h, s) in splits(seed).items()}
    candidates = candidate_directions(model, *data["train"], n_post=len(tok.post_instruction_ids))
    sel = select_direction(model, candidates, *data["val"], tok.refusal_ids, cfg)
    r, layer = sel["direction"], sel["layer"]
    harmful, harmless = data["test"]
    ids = tok.refusal_ids
    edited = orthogonalize_weights(copy.deepcopy(model), r)
    return {
        "pos": sel["pos"], "layer": layer, "direction": r,
        "harmful_base": mean_score(model, harmful, ids),
        "harmful_ablated": mean_score(model, harmful, ids, add_ablation_hooks(model, r)),
        "harmful_orthogonalized": mean_score(edited, harmful, ids),
        "harmless_base": mean_score(model, harmless, ids),
        "harmless_added": mean_score(model, harmless, ids, add_addition_hooks(model, r, layer)),
    }


if __name__ == "__main__":
    from train import trained_model

    model, tok = trained_model()
    for k, v in run(model, tok).items():
        print(k, v if not torch.is_tensor(v) else v.norm().item())
