"""Evaluation of a SimCLR encoder.

* contrastive validation: NT-Xent loss and top-1 positive retrieval (does the nearest other view,
  by cosine similarity, belong to the same example?) on held-out augmented pairs;
* linear evaluation: a logistic-regression classifier trained on frozen representations h.
"""
from __future__ import annotations

import argparse
from typing import Dict

import torch
import torch.nn.functional as F

from simclr.augment import two_views
from simclr.data import synthetic_images
from simclr.losses import nt_xent_loss
from simclr.model import SimCLR


@torch.no_grad()
def contrastive_metrics(model: SimCLR, images: torch.Tensor, temperature: float, seed: int = 123) -> Dict[str, float]:
    g = torch.Generator().manual_seed(seed)
    v1, v2 = two_views(images, g)
    was_training = model.training
    model.eval()
    _, z1 = model(v1)
    _, z2 = model(v2)
    model.train(was_training)
    loss = nt_xent_loss(z1, z2, temperature=temperature).item()
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.T
    sim.fill_diagonal_(-2.0)
    n = z1.shape[0]
    target = torch.cat([torch.arange(n, 2 * n), torch.arange(n)])
    top1 = (sim.argmax(dim=1) == target).float().mean().item()
    return {"val_nt_xent": loss, "val_top1_positive": top1}


def linear_eval(model: SimCLR, images, labels, steps: int = 100, seed: int = 0) -> float:
    was_training = model.training
    model.eval()
    with torch.no_grad():
        h, _ = model(images)
    model.train(was_training)
    torch.manual_seed(seed)
    n_train = int(0.75 * len(labels))
    clf = torch.nn.Linear(h.shape[1], int(labels.max()) + 1)
    opt = torch.optim.Adam(clf.parameters(), lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(clf(h[:n_train]), labels[:n_train]).backward()
        opt.step()
    with torch.no_grad():
        return (clf(h[n_train:]).argmax(1) == labels[n_train:]).float().mean().item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--temperature", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    images, labels = synthetic_images(128, seed=args.seed + 1)
    model = SimCLR()
    print(contrastive_metrics(model, images[:32], args.temperature))
    print({"linear_eval_acc": linear_eval(model, images, labels)})


if __name__ == "__main__":
    main()
