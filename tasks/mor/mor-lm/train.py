"""Train a tiny Mixture-of-Recursions model for a few steps on random token sequences (CPU, seconds)."""
from __future__ import annotations

import argparse

import torch

from mor.config import MoRConfig
from mor.model import MoRModel


def random_batches(cfg: MoRConfig, n: int, batch: int, seq_len: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        # a learnable toy pattern: each sequence counts upward from a random start
        start = torch.randint(0, cfg.vocab_size, (batch, 1), generator=g)
        yield (start + torch.arange(seq_len)) % cfg.vocab_size


def train(cfg: MoRConfig, steps: int = 20, batch: int = 4, seq_len: int = 12, lr: float = 3e-3, seed: int = 0):
    torch.manual_seed(seed)
    model = MoRModel(cfg).to(torch.float64)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    history = []
    for ids in random_batches(cfg, steps, batch, seq_len, seed):
        total, parts = model.loss(ids)
        opt.zero_grad()
        total.backward()
        opt.step()
        history.append({k: float(v.detach()) for k, v in parts.items()})
    return model, history


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--routing", default="expert", choices=["expert", "token"])
    p.add_argument("--recursions", type=int, default=3)
    p.add_argument("--kv-sharing", action="store_true")
    p.add_argument("--steps", type=int, default=20)
    a = p.parse_args()
    cfg = MoRConfig(routing=a.routing, n_recursions=a.recursions, kv_sharing=a.kv_sharing)
    _, history = train(cfg, steps=a.steps)
    for i, h in enumerate(history):
        print(i, " ".join(f"{k}={v:.4f}" for k, v in h.items()))


if __name__ == "__main__":
    main()
