"""Train the DVE evaluator on synthetic groups for a few steps (CPU, seconds)."""
from __future__ import annotations

import argparse

import torch

from dve.data import make_batch, random_groups
from dve.losses import evaluator_loss
from dve.model import InferenceAwareEvaluator
from evaluate import evaluate


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--groups-per-batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--classification-weight", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    train_groups = random_groups(200, seed=args.seed)
    dev_groups = random_groups(40, seed=args.seed + 1)
    model = InferenceAwareEvaluator()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    g = torch.Generator().manual_seed(args.seed)
    print("before:", {k: round(v, 3) for k, v in evaluate(model, dev_groups, args.classification_weight).items()})
    for step in range(1, args.steps + 1):
        idx = torch.randint(0, len(train_groups), (args.groups_per_batch,), generator=g).tolist()
        images, hyps, upds, labels, pairs = make_batch([train_groups[i] for i in idx])
        scores, logits = model(images, hyps, upds)
        out = evaluator_loss(scores, logits, labels, pairs, args.classification_weight)
        opt.zero_grad()
        out.loss.backward()
        opt.step()
        if step % 20 == 0 or step == 1:
            print(f"step {step:3d}  loss {out.loss.item():.4f}  ce {out.classification.item():.4f}  "
                  f"rank {out.ranking.item():.4f}")
    print("after:", {k: round(v, 3) for k, v in evaluate(model, dev_groups, args.classification_weight).items()})


if __name__ == "__main__":
    main()
