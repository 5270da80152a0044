"""Train a TinyNSALM for a few steps on synthetic repeated-segment sequences."""

import argparse

import torch
import torch.nn.functional as F

from evaluate import causality_gap, evaluate
from nsa import NSAConfig, TinyNSALM
from nsa.data import lm_targets, repeated_segment_batch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    cfg = NSAConfig()
    model = TinyNSALM(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    gen = torch.Generator().manual_seed(0)
    held_out = repeated_segment_batch(2, args.seq_len, cfg.vocab_size, 6, torch.Generator().manual_seed(1))
    print("before:", evaluate(model, held_out, 6))
    for step in range(args.steps):
        model.train()
        inputs, targets = lm_targets(repeated_segment_batch(args.batch_size, args.seq_len, cfg.vocab_size, 6, gen))
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), targets.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}  loss {loss.item():.4f}")
    print("after:", evaluate(model, held_out, 6))
    print("causality gap:", causality_gap(model, held_out, 14))


if __name__ == "__main__":
    main()
