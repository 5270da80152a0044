"""Stochastic data augmentation producing the two views of every example.

SimCLR composes random crops (resized back to full size), colour distortion and blur; the same
family of transformations, simplified for tiny tensors, is implemented here.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def random_resized_crop(x: torch.Tensor, g: torch.Generator, min_scale: float = 0.5) -> torch.Tensor:
    """Crop a random square covering at least ``min_scale`` of each side and resize it back."""
    _, _, h, w = x.shape
    out = []
    for img in x:
        scale = min_scale + (1 - min_scale) * float(torch.rand(1, generator=g))
        ch, cw = max(2, int(round(h * scale))), max(2, int(round(w * scale)))
        top = int(torch.randint(0, h - ch + 1, (1,), generator=g))
        left = int(torch.randint(0, w - cw + 1, (1,), generator=g))
        crop = img[:, top:top + ch, left:left + cw].unsqueeze(0)
        out.append(F.interpolate(crop, size=(h, w), mode="bilinear", align_corners=False)[0])
    return torch.stack(out)


def color_distort(x: torch.Tensor, g: torch.Generator, strength: float = 0.5) -> torch.Tensor:
    """Random per-image brightness and contrast change and per-channel scaling."""
    b = x.shape[0]
    brightness = 1 + strength * (2 * torch.rand(b, 1, 1, 1, generator=g) - 1)
    channel = 1 + strength * (2 * torch.rand(b, x.shape[1], 1, 1, generator=g) - 1) * 0.5
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 1 + strength * (2 * torch.rand(b, 1, 1, 1, generator=g) - 1)
    return ((x - mean) * contrast + mean).mul(brightness * channel).clamp(0.0, 1.0)


def random_flip(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    flip = torch.rand(x.shape[0], generator=g) < 0.5
    return torch.where(flip[:, None, None, None], x.flip(-1), x)


def augment(x: torch.Tensor, g: torch.Generator, flip: bool = False) -> torch.Tensor:
    """Crop-and-resize then colour distortion (mild settings: the images are only 12x12)."""
    x = random_resized_crop(x, g, min_scale=0.75)
    if flip:
        x = random_flip(x, g)
    return color_distort(x, g, strength=0.3)


def two_views(x: torch.Tensor, g: torch.Generator):
    """Two independent augmentations of the same batch: ``(view1, view2)``, row k of both from x[k]."""
    return augment(x, g), augment(x, g)
