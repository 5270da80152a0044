"""Held-out loss and recall accuracy of a HyenaLM, and a check that it is causal."""

import torch
import torch.nn.functional as F

from hyena import HyenaConfig, HyenaLM
from hyena.data import associative_recall_batch, lm_targets

NUM_PAIRS, NUM_KEYS, NUM_VALUES = 8, 12, 12


def held_out(batch_size: int = 16) -> torch.Tensor:
    return associative_recall_batch(batch_size, NUM_PAIRS, NUM_KEYS, NUM_VALUES, torch.Generator().manual_seed(123))


@torch.no_grad()
def evaluate(model: HyenaLM, tokens: torch.Tensor) -> dict[str, float]:
    model.eval()
    inputs, targets = lm_targets(tokens)
    logits = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)).item()
    recall = (logits[:, -1].argmax(-1) == targets[:, -1]).float().mean().item()
    return {"loss": loss, "recall_accuracy": recall}


@torch.no_grad()
def causality_gap(model: HyenaLM, tokens: torch.Tensor, cut: int) -> float:
    """Largest change of the logits before `cut` when the tokens from `cut` on are changed."""
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 1) % model.cfg.vocab_size
    return (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()


def main() -> None:
    torch.manual_seed(0)
    model = HyenaLM(HyenaConfig())
    tokens = held_out()
    print("untrained:", evaluate(model, tokens))
    print("causality gap:", causality_gap(model, tokens, 9))


if __name__ == "__main__":
    main()
