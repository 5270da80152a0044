"""Evaluation helpers: accuracy on fresh synthetic batches and the rank left in every adapter."""

from __future__ import annotations

import torch
import torch.nn as nn

from adalora.data import make_batch
from adalora.utils import effective_ranks


@torch.no_grad()
def accuracy(model: nn.Module, n_batches: int = 4, batch_size: int = 32, seed: int = 1234) -> float:
    model.eval()
    gen = torch.Generator().manual_seed(seed)
    correct = total = 0
    for _ in range(n_batches):
        tokens, pad_mask, labels = make_batch(batch_size, model.cfg.max_len, model.cfg.vocab_size, gen)
        correct += int((model(tokens, pad_mask).argmax(-1) == labels).sum())
        total += labels.numel()
    model.train()
    return correct / total


def rank_report(model: nn.Module) -> str:
    ranks = effective_ranks(model)
    width = max(len(n) for n in ranks)
    lines = [f"{name:<{width}}  rank {rank}" for name, rank in ranks.items()]
    lines.append(f"{'total':<{width}}  rank {sum(ranks.values())}")
    return "\n".join(lines)


if __name__ == "__main__":
    from adalora.model import EncoderClassifier, ModelConfig

    torch.manual_seed(0)
    print(f"untrained accuracy: {accuracy(EncoderClassifier(ModelConfig())):.3f}")
