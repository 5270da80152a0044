"""Train a HyenaLM for a few steps on associative recall."""

import argparse

import torch
import torch.nn.functional as F

from evaluate import NUM_KEYS, NUM_PAIRS, NUM_VALUES, causality_gap, evaluate, held_out
from hyena import HyenaConfig, HyenaLM
from hyena.data import associative_recall_batch, lm_targets


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    cfg = HyenaConfig()
    model = HyenaLM(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    gen = torch.Generator().manual_seed(0)
    tokens = held_out()
    print("before:", evaluate(model, tokens))
    for step in range(args.steps):
        model.train()
        batch = associative_recall_batch(args.batch_size, NUM_PAIRS, NUM_KEYS, NUM_VALUES, gen)
        inputs, targets = lm_targets(batch)
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), targets.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}")
    print("after:", evaluate(model, tokens))
    print("causality gap:", causality_gap(model, tokens, 9))


if __name__ == "__main__":
    main()
