"""Evaluate an ECI model: focal loss and causal-class precision / recall / F1 on a corpus."""
from __future__ import annotations

import argparse
from typing import Dict, List

import torch

from ergo.data import Document, collate, random_corpus
from ergo.losses import focal_loss
from ergo.metrics import causal_prf
from ergo.model import ERGOModel


@torch.no_grad()
def evaluate(model: ERGOModel, docs: List[Document], alpha: float = 0.25, gamma: float = 2.0) -> Dict[str, float]:
    tokens, spans, pairs, labels, pair_mask = collate(docs)
    logits = model(tokens, spans, pairs, pair_mask)
    out = causal_prf(logits, labels, pair_mask)
    out["focal_loss"] = focal_loss(logits, labels, alpha=alpha, gamma=gamma, mask=pair_mask).item()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    model = ERGOModel()
    print({k: round(v, 4) for k, v in evaluate(model, random_corpus(16, seed=args.seed + 7)).items()})


if __name__ == "__main__":
    main()
