"""Train the tiny MLA language model for a few steps on the synthetic copy task, then generate greedily with
the latent cache (absorbed and explicit decoding) and compare with recomputing the whole sequence.

    python train.py --steps 30
"""
from __future__ import annotations

import argparse

import torch

from mla.config import ModelConfig
from mla.data import batches
from mla.model import MlaLM


def train(cfg: ModelConfig, steps: int, batch_size: int = 8, seq_len: int = 32, lr: float = 3e-3,
          seed: int = 0, dtype: torch.dtype = torch.float32) -> tuple[MlaLM, list[float]]:
    """Train a fresh model with AdamW; return it and the training loss of every step."""
    torch.manual_seed(seed)
    model = MlaLM(cfg).to(dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)
    stream = batches(batch_size, seq_len, cfg.vocab_size, seed)
    losses = []
    for _ in range(steps):
        loss = model.loss(next(stream))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    return model, losses


@torch.no_grad()
def generate_uncached(model: MlaLM, prompt: torch.Tensor, new_tokens: int) -> torch.Tensor:
    """Greedy continuation that recomputes the whole sequence at every step (no cache)."""
    out = prompt
    for _ in range(new_tokens):
        out = torch.cat([out, model(out)[:, -1:].argmax(dim=-1)], dim=1)
    return out


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cfg = ModelConfig()
    model, losses = train(cfg, args.steps, seq_len=args.seq_len, seed=args.seed)
    for step, loss in enumerate(losses, 1):
        if step % 5 == 0 or step == len(losses):
            print(f"step {step} loss {loss:.4f}")
    prompt = next(batches(2, 8, cfg.vocab_size, seed=args.seed + 1))
    reference = generate_uncached(model, prompt, 8)
    for absorb in (False, True):
        same = torch.equal(model.generate(prompt, 8, absorb=absorb), reference)
        print(f"cached generation (absorb={absorb}) matches uncached: {same}")
    return losses


if __name__ == "__main__":
    main()
