"""Run a make_fixtures.py with every matrix product's result jittered by a few ulps (of the tensor's largest entry).

A fixture whose bytes change under this jitter depends on the last bits of a matrix product: another host's
BLAS can change it. Usage: python jitter_wrapper.py SEED ULPS SCRIPT ARGS..."""
import runpy
import sys

import torch
from torch.overrides import TorchFunctionMode

F = torch.nn.functional
OPS = {torch.matmul, torch.Tensor.__matmul__, torch.Tensor.__rmatmul__, torch.Tensor.matmul, torch.mm,
       torch.Tensor.mm, torch.bmm, torch.Tensor.bmm, torch.addmm, torch.Tensor.addmm, torch.baddbmm, torch.mv,
       torch.Tensor.mv, torch.dot, torch.Tensor.dot, torch.einsum, F.linear, torch.tensordot, torch.inner,
       torch.addmv, torch.addbmm, torch.cdist, F.conv1d, F.conv2d, F.scaled_dot_product_attention,
       torch.linalg.matmul, torch.linalg.qr, torch.linalg.solve, torch.linalg.eigh, torch.linalg.svd,
       torch.linalg.inv, torch.linalg.lstsq, torch.linalg.cholesky, torch.linalg.vecdot, torch.chain_matmul,
       torch.linalg.multi_dot, torch.cholesky_solve, torch.linalg.pinv, torch.linalg.eigvalsh, torch.linalg.norm,
       torch.cumsum}
SEED, ULPS = int(sys.argv[1]), float(sys.argv[2])
GEN = torch.Generator().manual_seed(SEED)
COUNT = [0]


def jitter(t):
    if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel():
        scale = t.detach().abs().amax().double().item() * torch.finfo(t.dtype).eps * ULPS
        if scale > 0 and scale == scale and scale != float("inf"):
            noise = (torch.rand(t.shape, generator=GEN, dtype=torch.float64) * 2 - 1) * scale
            COUNT[0] += 1
            return t + noise.to(t.dtype)
    if isinstance(t, tuple) and type(t) is tuple:
        return tuple(jitter(x) for x in t)
    return t


class Jitter(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in OPS:
            return jitter(out)
        return out


try:
    import numpy as np
    NGEN = np.random.Generator(np.random.PCG64(SEED))

    def wrap(fn):
        def inner(*a, **k):
            out = fn(*a, **k)
            if isinstance(out, np.ndarray) and out.dtype.kind == "f" and out.size:
                scale = float(np.abs(out).max()) * np.finfo(out.dtype).eps * ULPS
                if 0 < scale < float("inf"):
                    COUNT[0] += 1
                    return (out + (NGEN.random(out.shape) * 2 - 1) * scale).astype(out.dtype)
            return out
        return inner
    for name in ("dot", "matmul", "einsum", "inner", "tensordot", "vdot"):
        setattr(np, name, wrap(getattr(np, name)))
except ImportError:
    pass

sys.argv = sys.argv[3:]
with Jitter():
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    finally:
        print(f"jitter: {COUNT[0]} results perturbed", file=sys.stderr)
