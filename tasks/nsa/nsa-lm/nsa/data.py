"""Synthetic sequences in which a random segment is repeated later: predicting the repeat needs
attention to a distant block, which is what block selection is for."""

import torch


def repeated_segment_batch(
    batch_size: int, seq_len: int, vocab_size: int, segment_len: int, generator: torch.Generator
) -> torch.Tensor:
    """(B, seq_len) tokens: noise, a segment at a random early offset, noise, the same segment at the end."""
    tokens = torch.randint(1, vocab_size, (batch_size, seq_len), generator=generator)
    for b in range(batch_size):
        start = int(torch.randint(0, seq_len // 2 - segment_len, (1,), generator=generator))
        tokens[b, seq_len - segment_len :] = tokens[b, start : start + segment_len]
        tokens[b, seq_len - segment_len - 1] = 0  # separator announcing the repeat
    return tokens


def lm_targets(tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and next-token targets."""
    return tokens[:, :-1], tokens[:, 1:]
