"""Is a regenerated input fixture the committed one? Byte for byte, or equal up to float rounding.

A fixture built with matrix products (a random orthogonal matrix from a QR, a covariance) comes out of another
host's BLAS with last-bit differences (sandbox/numerics.py): the same inputs, not a different fixture. So a file
that is not byte-identical is loaded (torch's `weights_only` loader, or JSON) and compared value by value: the
same structure, keys, dtypes, shapes, integers and strings, and every float within `REL` of the largest magnitude
of its tensor (or of itself, for a lone number). Anything else, or a file that does not load, differs.
"""

from __future__ import annotations

import filecmp
import json
import math
from enum import Enum
from pathlib import Path
from typing import Any

REL = 1e-6  # float32 has 24 bits (6e-8): rounding differences are far below this, any hand edit far above


class Same(Enum):
    BYTES = "bytes"
    ROUNDING = "rounding"
    NO = "no"


def compare_files(new: Path, old: Path) -> Same:
    if filecmp.cmp(new, old, shallow=False):
        return Same.BYTES
    try:
        a, b = _load(new), _load(old)
    except Exception:  # a file we cannot read as data differs
        return Same.NO
    return Same.ROUNDING if a is not None and _close(a, b) else Same.NO


def _load(path: Path) -> Any:
    if path.suffix == ".json":
        return json.loads(path.read_text())
    if path.suffix == ".pt":
        import torch

        return torch.load(path, weights_only=True, map_location="cpu")
    return None


def _close(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= REL * max(abs(a), abs(b)))
    if type(a).__name__ == "Tensor":
        return _tensors_close(a, b)
    return bool(a == b)


def _tensors_close(a: Any, b: Any) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if not a.is_floating_point() or a.numel() == 0:
        return bool(a.equal(b))
    x, y = a.double(), b.double()
    nan = x.isnan()
    if not nan.equal(y.isnan()):
        return False
    inf = x.isinf() | y.isinf()
    if not x[inf].equal(y[inf]):
        return False
    finite = ~(nan | inf)
    if not bool(finite.any()):
        return True
    scale = float(y[finite].abs().max())
    return bool(((x[finite] - y[finite]).abs() <= REL * scale).all())
