"""Train a tiny gated-attention LM on synthetic bigram data and print the per-layer diagnostics."""
from __future__ import annotations

import argparse
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from gated.config import ModelConfig
from gated.data import BigramData
from gated.diagnostics import layer_diagnostics
from gated.model import GatedLM


@dataclass
class TrainResult:
    losses: list[float]
    diagnostics: list[dict[str, float]]


def train(cfg: ModelConfig, steps: int = 20, batch_size: int = 8, length: int = 16, lr: float = 3e-3,
          seed: int = 0, dtype: torch.dtype = torch.float32) -> TrainResult:
    torch.manual_seed(seed)
    model = GatedLM(cfg).to(dtype)
    data = BigramData(cfg.vocab_size, seed=seed)
    g = torch.Generator().manual_seed(seed + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)
    losses = []
    for _ in range(steps):
        tokens = data.batch(batch_size, length + 1, g)
        logits = model(tokens[:, :-1]).logits
        loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return TrainResult(losses, layer_diagnostics(model, data.batch(4, length, g)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gate", default="sdpa")
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    result = train(ModelConfig(gate_position=args.gate), steps=args.steps)
    print(f"loss {result.losses[0]:.3f} -> {result.losses[-1]:.3f}")
    for i, row in enumerate(result.diagnostics):
        print(f"layer {i}: " + ", ".join(f"{k} {v:.4f}" for k, v in row.items()))


if __name__ == "__main__":
    main()
