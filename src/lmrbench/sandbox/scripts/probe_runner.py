"""Probe runner: runs a task's probe cases against the candidate, inside the sandbox, and emits only data.

Standalone on purpose: it runs in the sandbox, which cannot import lmrbench. It is copied there as
`lmrbench_probe.py`, and is also the module probe files import (`from lmrbench_probe import case`).

A probe file registers cases; a case calls the repository's code on fixed inputs and returns a dict of named
outputs (tensors, arrays, numbers, strings, lists, dicts). Nothing here knows an expected value: the harness
compares the emitted data with the reference's outputs outside the sandbox, so candidate code that patches
anything in this process can change only the data it emits.

Output: one JSON line per case, written and flushed as each case ends, then a closing line:
    {"case": NAME, "status": "ok", "outputs": {KEY: VALUE}, "seconds": S, "spec": {...}}
    {"case": NAME, "status": "raised", "raised": [TYPE, BASE, ...], "message": "...", ...}
    {"module": FILE, "status": "import_error", "raised": [...], "message": "..."}
    {"done": true, "cases": N}
Arrays are {"t": "array", "dtype": ..., "shape": [...], "b64": raw little-endian bytes}; no pickle anywhere.
Dtype, shape and bytes are read from a plain copy (a base torch.Tensor or numpy ndarray over the same data), never
from the candidate's object: a subclass that overrides `dtype` cannot relabel its values.

Usage: python -P lmrbench_probe.py --out OUT.jsonl --root REPO PROBE_FILE [PROBE_FILE ...]
"""

import base64
import importlib.util
import json
import math
import os
import random
import sys
import time
import traceback

FORMAT = "lmrbench-probe/1"
MESSAGE_CHARS = 500
_REGISTRY: list = []


class _Case:
    def __init__(self, name, fn, arg, has_arg, spec):
        self.name, self.fn, self.arg, self.has_arg, self.spec = name, fn, arg, has_arg, spec

    def run(self):
        return self.fn(self.arg) if self.has_arg else self.fn()


def case(fn=None, *, name=None, params=None, ids=None, compare="close", rtol=1e-5, atol=1e-8, dtype=True,
         outputs=None):
    """Register a probe case (a decorator, with or without arguments).

    The function takes no argument, or one parameter value when `params` is given (one case per value, named
    `NAME[ID]`). It returns a dict of named outputs. Comparison with the reference's outputs (done outside the
    sandbox, with the reference run's spec): `compare` is "close" (shape, dtype when `dtype`, values within
    `rtol`/`atol`, NaN where the reference has NaN), "exact" or "none" (only the task's trusted checks look
    at it); `outputs` overrides these per output key (fnmatch patterns), e.g. {"grad.*": {"rtol": 1e-4}}.
    """
    spec = {"compare": compare, "rtol": rtol, "atol": atol, "dtype": dtype, "outputs": outputs or {}}

    def register(f):
        base = name or f.__name__
        if params is None:
            _REGISTRY.append(_Case(base, f, None, False, spec))
        else:
            values = list(params)
            labels = list(ids) if ids is not None else [str(i) for i in range(len(values))]
            if len(labels) != len(values):
                raise ValueError(f"case {base}: {len(labels)} ids for {len(values)} params")
            for label, value in zip(labels, values, strict=True):
                _REGISTRY.append(_Case(f"{base}[{label}]", f, value, True, spec))
        return f

    return register(fn) if fn is not None else register


# ---------------------------------------------------------------- encoding outputs as plain data


def _array(arr, dtype_name):
    import numpy as np

    arr = np.require(arr, requirements="C")  # (ascontiguousarray would make a 0-d array 1-d)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return {"t": "array", "dtype": dtype_name, "store": arr.dtype.str, "shape": list(arr.shape),
            "b64": base64.b64encode(arr.tobytes()).decode("ascii")}


def _plain_tensor(value, torch):
    """A base torch.Tensor over the candidate's storage, detached, on the CPU: dtype, shape and bytes are read from
    it, never from the candidate's object (a subclass can override `dtype`, `shape` or `__torch_function__`)."""
    disable = getattr(getattr(torch, "_C", None), "DisableTorchFunctionSubclass", None)
    if disable is None:
        return torch.Tensor.as_subclass(value, torch.Tensor).detach().cpu()
    with disable():
        return torch.Tensor.as_subclass(value, torch.Tensor).detach().cpu()


def _plain_array(value, np):
    """A base ndarray over the same data (a view of an ndarray subclass, a numpy scalar as a 0-d array): its dtype
    is the data's, whatever the subclass's `dtype` property says."""
    return np.asarray(value)


def _tensor(value, torch):
    t = _plain_tensor(value, torch)
    name = str(t.dtype).replace("torch.", "")
    if t.is_complex():
        t = t.resolve_conj()
    if name in ("bfloat16",):
        t = t.float()
    return _array(t.resolve_neg().numpy(), name)


def _float(value):
    return {"t": "float", "v": repr(float(value)) if math.isfinite(value) else str(value)}


def _scalar(value):
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int):
        return {"t": "int", "v": str(value)}
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return {"t": "str", "v": value}
    if value is None:
        return {"t": "none"}
    return None


def _encode(value, key, out):
    scalar = _scalar(value)
    if scalar is not None:
        out[key] = scalar
        return
    torch = sys.modules.get("torch")
    np = sys.modules.get("numpy")
    if torch is not None and isinstance(value, torch.Tensor):
        out[key] = _tensor(value, torch)
    elif torch is not None and isinstance(value, torch.dtype):
        out[key] = {"t": "str", "v": str(value)}
    elif np is not None and isinstance(value, (np.ndarray, np.generic)):
        arr = _plain_array(value, np)
        out[key] = _array(arr, str(arr.dtype)) if arr.dtype.kind in "biufc" else {
            "t": "unsupported", "v": type(value).__name__}
    elif isinstance(value, (list, tuple)):
        out[key] = {"t": "seq", "n": len(value)}
        for i, item in enumerate(value):
            _encode(item, f"{key}.{i}", out)
    elif isinstance(value, dict):
        keys = [str(k) for k in value]
        out[key] = {"t": "map", "keys": sorted(keys)}
        for k, item in value.items():
            _encode(item, f"{key}.{k}", out)
    else:
        out[key] = {"t": "unsupported", "v": type(value).__name__}


def encode_outputs(result):
    """A case's returned dict as {key: encoded value}; anything else is one unsupported output."""
    out = {}
    if not isinstance(result, dict):
        out["<return>"] = {"t": "unsupported", "v": f"case returned {type(result).__name__}, not a dict"}
        return out
    for k, v in result.items():
        _encode(v, str(k), out)
    return out


# ---------------------------------------------------------------- running


def _raised(exc):
    return {"raised": [c.__name__ for c in type(exc).__mro__], "message": str(exc)[:MESSAGE_CHARS]}


def _seed():
    random.seed(0)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(0)
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        if _cpu_only(torch):
            # What torch.manual_seed does on a machine with no accelerator, without the ~0.3 ms it spends queueing
            # (with a formatted stack) a CUDA seed that can never run: it runs before every case.
            torch.random.default_generator.manual_seed(0)
        else:
            torch.manual_seed(0)


def _cpu_only(torch):
    try:
        mps = getattr(getattr(torch, "backends", None), "mps", None)
        xpu = getattr(torch, "xpu", None)
        return not (torch.cuda.is_available() or (mps is not None and mps.is_available())
                    or (xpu is not None and xpu.is_available()))
    except Exception:
        return False


def _load(path, index):
    spec = importlib.util.spec_from_file_location(f"_lmrbench_probe_{index}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)


def _write(fh, row):
    fh.write(json.dumps(row, allow_nan=False) + "\n")
    fh.flush()


def _run_case(c):
    _seed()
    start = time.perf_counter()
    try:
        outputs = encode_outputs(c.run())
        row = {"case": c.name, "status": "ok", "outputs": outputs}
    except Exception as exc:
        traceback.print_exc()
        row = {"case": c.name, "status": "raised", **_raised(exc)}
    row["seconds"] = round(time.perf_counter() - start, 6)
    row["spec"] = c.spec
    return row


def run(probe_files, out_path):
    """Import each probe file (registering its cases), run every case, write one line each."""
    sys.modules["lmrbench_probe"] = sys.modules[__name__]
    count = 0
    with open(out_path, "w") as fh:
        _write(fh, {"format": FORMAT})
        for index, path in enumerate(probe_files):
            del _REGISTRY[:]
            try:
                _load(path, index)
            except Exception as exc:
                traceback.print_exc()
                _write(fh, {"module": os.path.basename(path), "status": "import_error", **_raised(exc)})
                continue
            for c in list(_REGISTRY):
                _write(fh, _run_case(c))
                count += 1
        _write(fh, {"done": True, "cases": count})


def main(argv):
    args = list(argv)
    out = args[args.index("--out") + 1]
    root = args[args.index("--root") + 1]
    files = [a for i, a in enumerate(args) if i > 0 and args[i - 1] not in ("--out", "--root") and a[:2] != "--"]
    os.chdir(root)
    sys.path.insert(0, root)  # the repository's own packages (`from dpo.losses import dpo_loss`)
    for folder in sorted({os.path.dirname(os.path.abspath(f)) for f in files}):
        sys.path.append(folder)  # helper modules beside the probe files
    run(files, out)
    return 0


if __name__ == "__main__":
    sys.modules["lmrbench_probe"] = sys.modules["__main__"]
    sys.exit(main(sys.argv[1:]))
