"""Re-train the tiny encoder with the HiT loss on a random taxonomy (a few steps, CPU, seconds)."""
from __future__ import annotations

import argparse

import torch

from evaluate import evaluate
from hit.data import random_taxonomy, sample_triplets
from hit.losses import hit_loss
from hit.model import HierarchyEncoder


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--entities", type=int, default=40)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--cluster-margin", type=float, default=5.0)
    ap.add_argument("--centri-margin", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    tax = random_taxonomy(args.entities, seed=args.seed)
    model = HierarchyEncoder(tax.vocab_size, dim=args.dim)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    g = torch.Generator().manual_seed(args.seed + 1)

    print("before:", {k: round(v, 3) for k, v in evaluate(model, tax).items()})
    for step in range(1, args.steps + 1):
        child_ids, parent_ids, negative_ids = sample_triplets(tax, args.batch_size, g)
        out = hit_loss(
            model(child_ids),
            model(parent_ids),
            model(negative_ids),
            cluster_margin=args.cluster_margin,
            centri_margin=args.centri_margin,
        )
        opt.zero_grad()
        out.loss.backward()
        opt.step()
        if step % 10 == 0 or step == 1:
            print(f"step {step:3d}  loss {out.loss.item():.4f}  cluster {out.cluster.item():.4f}  "
                  f"centripetal {out.centripetal.item():.4f}")
    print("after:", {k: round(v, 3) for k, v in evaluate(model, tax).items()})


if __name__ == "__main__":
    main()
