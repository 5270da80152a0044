"""Train the entropy model, then the byte latent model, for a few steps on synthetic text.

    python train.py --steps 20 --method global --threshold 2.5
    python train.py --steps 20 --method monotonic --threshold 0.5 --pooling mean
"""
from __future__ import annotations

import argparse

import torch

from blt.config import EncoderConfig, ModelConfig, PatchingConfig
from blt.data import batches
from blt.entropy_model import ByteLM
from blt.model import ByteLatentModel


def train_entropy_model(cfg: ModelConfig, steps: int, batch_size: int = 8, seq_len: int = 32, lr: float = 3e-3,
                        seed: int = 0, dtype: torch.dtype = torch.float32) -> ByteLM:
    """Train a fresh entropy model with AdamW."""
    torch.manual_seed(seed)
    model = ByteLM(cfg.entropy_d, cfg.entropy_layers, cfg.entropy_heads).to(dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    stream = batches(batch_size, seq_len, seed)
    for _ in range(steps):
        loss = model.loss(next(stream))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


def train(cfg: ModelConfig, entropy_model: ByteLM, steps: int, batch_size: int = 8, seq_len: int = 32,
          lr: float = 3e-3, seed: int = 1, dtype: torch.dtype = torch.float32) -> list[float]:
    """Train a fresh byte latent model with AdamW; return the loss of every step."""
    torch.manual_seed(seed)
    model = ByteLatentModel(cfg, entropy_model).to(dtype)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.1)
    stream = batches(batch_size, seq_len, seed)
    losses = []
    for _ in range(steps):
        loss = model.loss(next(stream))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        losses.append(loss.item())
    return losses


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--entropy-steps", type=int, default=60)
    parser.add_argument("--method", default="global", choices=["global", "monotonic"])
    parser.add_argument("--threshold", type=float, default=2.5)
    parser.add_argument("--pooling", default="max", choices=["max", "mean"])
    args = parser.parse_args(argv)
    cfg = ModelConfig(patching=PatchingConfig(args.method, args.threshold), encoder=EncoderConfig(pooling=args.pooling))
    entropy_model = train_entropy_model(cfg, args.entropy_steps)
    losses = train(cfg, entropy_model, args.steps)
    for step, loss in enumerate(losses, 1):
        if step % 5 == 0 or step == len(losses):
            print(f"step {step} loss {loss:.4f}")
    return losses


if __name__ == "__main__":
    main()
