"""Train a tiny LM for a few steps with Lion (or AdamW for comparison)."""

from __future__ import annotations

import argparse

import torch

from lion.data import get_batch, make_corpus
from lion.model import LMConfig, TinyLM
from lion.optimizer import Lion
from lion.param_groups import decay_groups
from lion.schedule import warmup_cosine


def build_optimizer(name: str, model: torch.nn.Module, lr: float, weight_decay: float) -> torch.optim.Optimizer:
    groups = decay_groups(model, weight_decay)
    if name == "lion":
        # Lion's update has unit magnitude per coordinate, so it wants a smaller lr and a larger decay than AdamW.
        return Lion(groups, lr=lr, betas=(0.9, 0.99))
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.999))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--optimizer", choices=["lion", "adamw"], default="lion")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=1.0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    cfg = LMConfig()
    model = TinyLM(cfg)
    corpus = make_corpus(4096, cfg.vocab_size, gen)
    opt = build_optimizer(args.optimizer, model, args.lr, args.weight_decay)
    sched = warmup_cosine(opt, warmup_steps=args.steps // 10, total_steps=args.steps)

    for step in range(1, args.steps + 1):
        x, y = get_batch(corpus, args.batch_size, cfg.block_size, gen)

        def closure() -> torch.Tensor:
            opt.zero_grad(set_to_none=True)
            _, loss = model(x, y)
            loss.backward()
            return loss

        loss = opt.step(closure)
        sched.step()
        if step == 1 or step % 10 == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}  lr {sched.get_last_lr()[0]:.2e}")

    with torch.no_grad():
        x, y = get_batch(corpus, 64, cfg.block_size, torch.Generator().manual_seed(999))
        print(f"held-out loss: {model(x, y)[1].item():.4f}")


if __name__ == "__main__":
    main()
