"""SimCLR pre-training on synthetic images for a few steps, then evaluation (CPU, seconds)."""
from __future__ import annotations

import argparse

import torch

from evaluate import contrastive_metrics, linear_eval
from simclr.augment import two_views
from simclr.data import batches, synthetic_images
from simclr.losses import nt_xent_loss
from simclr.model import SimCLR


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--temperature", type=float, default=0.5)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    images, labels = synthetic_images(256, seed=args.seed)
    held_out, _ = synthetic_images(32, seed=args.seed + 100)
    model = SimCLR()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-6)
    g = torch.Generator().manual_seed(args.seed)

    print("before:", contrastive_metrics(model, held_out, args.temperature))
    step = 0
    while step < args.steps:
        for idx in batches(len(images), args.batch_size, g):
            v1, v2 = two_views(images[idx], g)
            _, z1 = model(v1)
            _, z2 = model(v2)
            loss = nt_xent_loss(z1, z2, temperature=args.temperature)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 5 == 0 or step == 1:
                print(f"step {step:3d}  nt-xent {loss.item():.4f}")
            if step >= args.steps:
                break
    print("after:", contrastive_metrics(model, held_out, args.temperature))
    print("linear eval accuracy:", round(linear_eval(model, images, labels), 3))


if __name__ == "__main__":
    main()
