"""A synthetic image dataset: a class prototype plus a coarse instance-specific pattern, shifted and noisy."""
from __future__ import annotations

import torch


def synthetic_images(num: int = 256, classes: int = 4, channels: int = 3, size: int = 12, seed: int = 0):
    """Return ``(images, labels)``: images ``(num, channels, size, size)`` in [0, 1], labels ``(num,)``.

    Labels are only used by the linear evaluation; pre-training never sees them.
    """
    g = torch.Generator().manual_seed(seed)
    prototypes = torch.rand(classes, channels, size, size, generator=g)
    labels = torch.randint(0, classes, (num,), generator=g)
    instance = torch.rand(num, channels, size // 3, size // 3, generator=g)
    instance = torch.nn.functional.interpolate(instance, size=(size, size), mode="nearest")
    images = 0.5 * prototypes[labels] + 0.5 * instance
    shifts = torch.randint(-2, 3, (num, 2), generator=g)
    images = torch.stack([torch.roll(img, shifts=tuple(s.tolist()), dims=(1, 2)) for img, s in zip(images, shifts)])
    images = (images + 0.1 * torch.randn(images.shape, generator=g)).clamp(0.0, 1.0)
    return images, labels


def batches(num: int, batch_size: int, generator: torch.Generator):
    """Yield index tensors of a random permutation, ``batch_size`` at a time (last one dropped)."""
    perm = torch.randperm(num, generator=generator)
    for start in range(0, num - batch_size + 1, batch_size):
        yield perm[start:start + batch_size]
