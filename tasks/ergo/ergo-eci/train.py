"""Train the tiny ERGO model with the focal loss on synthetic documents (CPU, seconds)."""
from __future__ import annotations

import argparse

import torch

from ergo.data import collate, random_corpus
from ergo.losses import focal_loss
from ergo.model import ERGOModel
from evaluate import evaluate


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--alpha", type=float, default=0.75)
    ap.add_argument("--gamma", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    train_docs = random_corpus(128, seed=args.seed)
    dev_docs = random_corpus(32, seed=args.seed + 1)
    positives = sum(int(d.labels.sum()) for d in train_docs)
    total = sum(len(d.labels) for d in train_docs)
    print(f"{total} training pairs, {positives} causal ({100 * positives / total:.1f}%)")

    model = ERGOModel()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    g = torch.Generator().manual_seed(args.seed)
    for step in range(1, args.steps + 1):
        idx = torch.randint(0, len(train_docs), (args.batch_size,), generator=g).tolist()
        tokens, spans, pairs, labels, pair_mask = collate([train_docs[i] for i in idx])
        logits = model(tokens, spans, pairs, pair_mask)
        loss = focal_loss(logits, labels, alpha=args.alpha, gamma=args.gamma, mask=pair_mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == 1:
            print(f"step {step:3d}  focal loss {loss.item():.4f}")
    print("dev:", {k: round(v, 4) for k, v in evaluate(model, dev_docs, args.alpha, args.gamma).items()})


if __name__ == "__main__":
    main()
