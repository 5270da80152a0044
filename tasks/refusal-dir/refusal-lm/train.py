"""Train the tiny chat model to refuse harmful instructions: the first response token is a refusal token for a
harmful instruction and a compliance token for a harmless one."""
from __future__ import annotations

import random

import torch
import torch.nn.functional as F

from refusal.config import ModelConfig, TrainConfig
from refusal.data import harmful_instruction, harmless_instruction
from refusal.model import TinyChatLM, build_model
from refusal.tokenizer import Tokenizer


def training_batch(tok: Tokenizer, rng: random.Random, size: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    instructions, targets = [], []
    for _ in range(size):
        if rng.random() < 0.5:
            instructions.append(harmful_instruction(rng))
            targets.append(rng.choice(tok.refusal_ids))
        else:
            instructions.append(harmless_instruction(rng))
            targets.append(tok.compliance_ids[0])
    ids, mask = tok.encode_batch(instructions)
    return ids, mask, torch.tensor(targets, dtype=torch.long)


def train(model: TinyChatLM, tok: Tokenizer, cfg: TrainConfig) -> list[float]:
    rng = random.Random(cfg.seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    losses = []
    model.train()
    for _ in range(cfg.steps):
        ids, mask, target = training_batch(tok, rng, cfg.batch_size)
        loss = F.cross_entropy(model(ids, mask)[:, -1, :], target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    return losses


def trained_model(dtype: torch.dtype = torch.float32, steps: int = 300, seed: int = 0) -> tuple[TinyChatLM, Tokenizer]:
    tok = Tokenizer()
    model = build_model(ModelConfig(vocab_size=len(tok), dtype=dtype), seed=seed)
    train(model, tok, TrainConfig(steps=steps, seed=seed))
    return model, tok


if __name__ == "__main__":
    model, tok = trained_model()
    torch.save(model.state_dict(), "tiny_chat.pt")
    print("saved tiny_chat.pt")
