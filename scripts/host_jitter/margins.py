"""Run a script and report the smallest decision margins of torch argmax, max(dim) and topk calls on floats.

Usage: python margins.py SCRIPT ARGS...  (prints a summary on stderr at exit)."""
import atexit
import runpy
import sys

import torch
from torch.overrides import TorchFunctionMode

REC: dict = {}


def note(kind, x, gaps):
    if not isinstance(gaps, torch.Tensor):
        gaps = torch.tensor([gaps], dtype=torch.float64)
    gaps = gaps.reshape(-1)
    if bool((gaps == 0).any()):
        note1(kind + "(exact tie)", x, 0.0)
    pos = gaps[gaps > 0]
    if pos.numel():
        note1(kind, x, float(pos.min()))


def note1(kind, x, gap):
    scale = float(x.detach().abs().max()) if x.numel() else 0.0
    rel = gap / scale if scale else float("inf")
    key = (kind, str(x.dtype))
    best = REC.get(key)
    if best is None or rel < best[0]:
        REC[key] = (rel, gap, tuple(x.shape))


def top2_gap(x, dim):
    if x.shape[dim] < 2:
        return None
    v = x.detach().double().topk(2, dim=dim).values
    return v.select(dim, 0) - v.select(dim, 1)


class Meter(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        try:
            name = getattr(func, "__name__", "")
            x = args[0] if args else None
            if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() > 1:
                if name in ("argmax", "max") and (len(args) > 1 or "dim" in kwargs):
                    dim = args[1] if len(args) > 1 else kwargs["dim"]
                    if isinstance(dim, int):
                        g = top2_gap(x, dim)
                        if g is not None:
                            note(name, x, g)
                elif name == "argmax":
                    g = top2_gap(x.reshape(-1), 0)
                    note("argmax", x, g)
                elif name == "topk":
                    k = args[1] if len(args) > 1 else kwargs["k"]
                    dim = kwargs.get("dim", args[2] if len(args) > 2 else -1)
                    if x.shape[dim] > k:
                        v = x.detach().double().sort(dim=dim, descending=True).values
                        note("topk", x, v.select(dim, k - 1) - v.select(dim, k))
                elif name == "multinomial":
                    pass
        except Exception as e:  # the meter never changes the run
            REC[("error", name)] = (0, repr(e), ())
        return out


@atexit.register
def report():
    for (kind, dt), (rel, gap, shape) in sorted(REC.items(), key=lambda kv: str(kv[0])):
        print(f"margin {kind:10s} {dt:14s} smallest gap {gap!r} (relative to max |x|: {rel:.3g}) shape {shape}",
              file=sys.stderr)


sys.argv = sys.argv[1:]
with Meter():
    runpy.run_path(sys.argv[0], run_name="__main__")
