"""Pre-train a tiny GPT for a few steps with SophiaG (GNB Hessian estimate every k steps)."""

from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from sophia.data import get_batch, make_corpus
from sophia.estimator import sampled_label_loss
from sophia.model import GPT, GPTConfig


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--rho", type=float, default=0.04)
    parser.add_argument("--weight-decay", type=float, default=0.1)
    parser.add_argument("--hess-interval", type=int, default=10, help="k: steps between Hessian estimates")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    cfg = GPTConfig()
    model = GPT(cfg)
    corpus = make_corpus(3000, cfg.vocab_size, gen)
    opt = model.configure_optimizer(lr=args.lr, weight_decay=args.weight_decay, rho=args.rho)

    for step in range(args.steps):
        x, y = get_batch(corpus, args.batch_size, cfg.block_size, gen)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), y.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

        if step % args.hess_interval == args.hess_interval - 1:
            # GNB: gradient of the loss on labels sampled from the model, squared inside update_hessian.
            sampled_loss, n_terms = sampled_label_loss(model(x), generator=gen)
            sampled_loss.backward()
            opt.update_hessian(batch_size=n_terms)
            opt.zero_grad(set_to_none=True)

        if step % 10 == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}")

    with torch.no_grad():
        x, y = get_batch(corpus, 64, cfg.block_size, torch.Generator().manual_seed(123))
        val = F.cross_entropy(model(x).reshape(-1, cfg.vocab_size), y.reshape(-1))
    hess = torch.cat([opt.state[p]["hessian"].flatten() for g in opt.param_groups for p in g["params"] if p in opt.state])
    print(f"validation loss: {val.item():.4f}")
    print(f"Hessian estimate: mean {hess.mean().item():.3e}, max {hess.max().item():.3e}")


if __name__ == "__main__":
    main()
