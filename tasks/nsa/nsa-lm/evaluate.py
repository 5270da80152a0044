"""Held-out loss and copy accuracy of a TinyNSALM, plus a causality check of the attention layer."""

import torch
import torch.nn.functional as F

from nsa import NSAConfig, TinyNSALM
from nsa.data import lm_targets, repeated_segment_batch


@torch.no_grad()
def evaluate(model: TinyNSALM, tokens: torch.Tensor, segment_len: int) -> dict[str, float]:
    model.eval()
    inputs, targets = lm_targets(tokens)
    logits = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)).item()
    copied = logits[:, -segment_len + 1 :].argmax(-1) == targets[:, -segment_len + 1 :]
    return {"loss": loss, "copy_accuracy": copied.float().mean().item()}


@torch.no_grad()
def causality_gap(model: TinyNSALM, tokens: torch.Tensor, cut: int) -> float:
    """Largest change of the logits before `cut` when every token from `cut` on is replaced."""
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 1) % model.cfg.vocab_size
    return (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()


def main() -> None:
    torch.manual_seed(0)
    cfg = NSAConfig()
    model = TinyNSALM(cfg)
    tokens = repeated_segment_batch(2, 32, cfg.vocab_size, 6, torch.Generator().manual_seed(1))
    print("untrained:", evaluate(model, tokens, 6))
    print("causality gap:", causality_gap(model, tokens, 14))


if __name__ == "__main__":
    main()
