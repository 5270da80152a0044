"""Train the small model on toy word problems (next-token cross-entropy), so that its probabilities mean
something.

    python train_lm.py --steps 50
"""
from __future__ import annotations

import argparse
import random

import torch

from lingua.data import corpus, word_problem
from lingua.lm import TinyCausalLM
from lingua.tokenizer import WordTokenizer


def train_lm(lm: TinyCausalLM, tokenizer: WordTokenizer, steps: int, seed: int = 0, lr: float = 1e-2,
             batch: int = 8) -> list[float]:
    """Adam on batches of solved problems, each starting with the beginning-of-sequence token; the losses."""
    rng = random.Random(seed)
    optimizer = torch.optim.Adam(lm.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        texts = [tokenizer.encode(word_problem(rng, solved=True)) for _ in range(batch)]
        width = max(len(t) for t in texts) + 1
        ids = torch.full((batch, width), tokenizer.bos_id, dtype=torch.long)
        mask = torch.zeros(batch, width - 1, dtype=torch.bool)
        for row, text in enumerate(texts):
            ids[row, 1:len(text) + 1] = torch.tensor(text)
            mask[row, :len(text)] = True
        logits, _ = lm(ids[:, :-1])
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")
        loss = nll[mask].mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tokenizer = WordTokenizer.from_texts(corpus())
    losses = train_lm(TinyCausalLM(tokenizer.vocab_size, seed=args.seed), tokenizer, args.steps, args.seed)
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")


if __name__ == "__main__":
    main()
