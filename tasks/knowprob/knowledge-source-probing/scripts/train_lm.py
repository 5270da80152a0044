"""Train the tiny language model on the synthetic knowledge base for a few steps.

    PYTHONPATH=. python scripts/train_lm.py --steps 60 --out runs/tiny_lm.pt
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from knowprob.kb import TEMPLATES, make_synthetic_kb
from knowprob.training import train_tiny_lm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="where to save the checkpoint")
    args = ap.parse_args()
    torch.set_num_threads(1)
    kb = make_synthetic_kb(seed=args.seed)
    model, tok, losses = train_tiny_lm(kb, TEMPLATES, steps=args.steps, seed=args.seed)
    print(f"{len(kb)} facts, vocabulary {len(tok)}; loss {losses[0]:.3f} -> {losses[-1]:.3f}")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"state_dict": model.state_dict(), "itos": tok.itos}, args.out)
        print(f"saved {args.out}")


if __name__ == "__main__":
    main()
