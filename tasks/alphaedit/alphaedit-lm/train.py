"""Pre-train TinyLM on the facts of a FactWorld (both templates), so that there is knowledge to edit.

    python train.py --steps 300
"""
from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from alphaedit.config import ModelConfig, PretrainConfig
from alphaedit.data import FactWorld
from alphaedit.model import TinyLM


def pretrain(model: TinyLM, world: FactWorld, cfg: PretrainConfig) -> list[float]:
    """Full-batch Adam on the next-token loss of every fact's object; returns the loss per step."""
    facts = world.facts()
    prompts = [world.prompts(facts, template)[0] for template in (0, 1)]
    tokens = torch.cat(prompts)
    objects = world.object_tokens(facts).repeat(2)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    losses = []
    for _ in range(cfg.steps):
        loss = F.cross_entropy(model(tokens)[:, -1], objects)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def build(pretrain_cfg: PretrainConfig | None = None, model_cfg: ModelConfig | None = None) -> tuple[TinyLM, FactWorld]:
    """A FactWorld and a TinyLM (in the default dtype) pre-trained on it."""
    pretrain_cfg = pretrain_cfg or PretrainConfig()
    world = FactWorld(seed=pretrain_cfg.seed)
    model_cfg = model_cfg or ModelConfig(vocab_size=world.vocab_size)
    if model_cfg.vocab_size < world.vocab_size:
        raise ValueError("the model's vocabulary is smaller than the world's")
    torch.manual_seed(pretrain_cfg.seed)
    model = TinyLM(model_cfg)
    pretrain(model, world, pretrain_cfg)
    model.eval()
    return model, world


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=PretrainConfig.steps)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    model, world = build(PretrainConfig(steps=args.steps, seed=args.seed))
    facts = world.facts()
    for template in (0, 1):
        tokens, _ = world.prompts(facts, template)
        with torch.no_grad():
            acc = (model(tokens)[:, -1].argmax(-1) == world.object_tokens(facts)).float().mean().item()
        print(f"template {template}: fact accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
