"""Train the tiny Titans (MAL) model for a few steps on the synthetic recall task; the memory learns at test time
inside every forward pass, the outer loop trains its projections, gates and initial weights."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from titans.config import TitansConfig, TrainConfig
from titans.data import recall_batch
from titans.model import TitansMAL


def train(cfg: TitansConfig = TitansConfig(), tcfg: TrainConfig = TrainConfig()) -> list[float]:
    torch.manual_seed(tcfg.seed)
    g = torch.Generator().manual_seed(tcfg.seed)
    model = TitansMAL(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg.lr)
    losses = []
    for _ in range(tcfg.steps):
        tokens = recall_batch(tcfg.batch_size, tcfg.seq_len, cfg.vocab_size, g)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    for step, loss in enumerate(train()):
        print(f"step {step}: loss {loss:.4f}")
