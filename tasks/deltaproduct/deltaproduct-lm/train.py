"""Train the tiny DeltaProduct LM for a few steps on the S3 word problem (padded batches of ragged length).

    python train.py --steps 20 --householder 2 --neg-eigval
"""
from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from deltaprod.config import DeltaProductConfig, ModelConfig
from deltaprod.data import ragged_batch
from deltaprod.model import DeltaProductLM


def build(cfg: ModelConfig, seed: int = 0, dtype: torch.dtype = torch.float32) -> DeltaProductLM:
    """A freshly initialised model (seeded) in `dtype`."""
    torch.manual_seed(seed)
    return DeltaProductLM(cfg).to(dtype)


def loss_on(model: DeltaProductLM, ids: torch.Tensor, mask: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the state predictions over the real tokens."""
    logits = model(ids, attention_mask=mask)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100)


def train(model: DeltaProductLM, steps: int, batch: int = 8, length: int = 12, lr: float = 3e-3,
          seed: int = 0) -> list[float]:
    """`steps` AdamW steps on fresh ragged batches; returns the loss of each step (before its update)."""
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    losses = []
    for _ in range(steps):
        ids, mask, targets = ragged_batch(batch, length, g)
        loss = loss_on(model, ids, mask, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--householder", type=int, default=2)
    parser.add_argument("--neg-eigval", action="store_true")
    parser.add_argument("--gate", action="store_true")
    args = parser.parse_args()
    layer = DeltaProductConfig(num_householder=args.householder, allow_neg_eigval=args.neg_eigval,
                               use_forget_gate=args.gate)
    model = build(ModelConfig(layer=layer))
    for step, loss in enumerate(train(model, args.steps)):
        print(f"step {step:3d}  loss {loss:.4f}")


if __name__ == "__main__":
    main()
