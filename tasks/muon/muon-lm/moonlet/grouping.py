"""Split a model's parameters into the optimizer's parameter groups."""
from __future__ import annotations

from typing import Any

from torch import nn

from moonlet.config import OptimConfig

EMBEDDING_AND_HEAD = ("tok_emb.", "pos_emb.", "lm_head.")


def is_muon_param(name: str, ndim: int) -> bool:
    """Hidden weight matrices: every 2-D parameter except the embeddings and the output head."""
    return ndim == 2 and not name.startswith(EMBEDDING_AND_HEAD)


def param_groups(model: nn.Module, cfg: OptimConfig) -> list[dict[str, Any]]:
    """Parameter groups for `moonlet.muon.Muon`.

    Returns up to three groups, each with the keys `params`, `name`, `use_muon` and `weight_decay`:
    "muon" (the hidden matrices, `use_muon` True), "adamw" (embeddings and head) and "adamw_no_decay" (1-D
    parameters; weight decay 0 when `cfg.no_decay_vectors`). Empty groups are left out. The other
    hyper-parameters come from the optimizer's defaults.
    """
    muon, adamw, vectors = [], [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if is_muon_param(name, p.ndim):
            muon.append(p)
        elif p.ndim >= 2:
            adamw.append(p)
        else:
            vectors.append(p)
    groups = [
        {"params": muon, "name": "muon", "use_muon": True, "weight_decay": cfg.weight_decay},
        {"params": adamw, "name": "adamw", "use_muon": False, "weight_decay": cfg.weight_decay},
        {"params": vectors, "name": "adamw_no_decay", "use_muon": False,
         "weight_decay": 0.0 if cfg.no_decay_vectors else cfg.weight_decay},
    ]
    return [g for g in groups if g["params"]]
