"""Authoring aid (never run by the harness): the host-independence margins of the probe's top-k selections.

Runs every case of tests/probe_dsa.py against the UNMASKED release (PYTHONPATH=<golden dir>, the task's
environment) with `torch.Tensor.topk` wrapped: for each call made by the DSA indexer (the only top-k over the last
axis in these dense-MLP models, besides generation's own), it records, for every query row that has more than k
finite scores, the gap between its k-th and (k+1)-th largest score, absolute and relative to the row's largest
magnitude. Prints the smallest per case. Usage:
  PYTHONPATH=$GOLDEN:$PWD/src $ENV/bin/python tasks/hf-deepseek-dsa/make_margins.py
"""

import importlib.util
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "src" / "lmrbench" / "sandbox" / "scripts"))
import probe_runner  # noqa: E402

sys.modules["lmrbench_probe"] = probe_runner
spec = importlib.util.spec_from_file_location("probe_dsa", HERE / "tests" / "probe_dsa.py")
probe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(probe)

orig = torch.Tensor.topk
GAPS: list[tuple[float, float]] = []


def topk(self, k, dim=-1, *a, **kw):
    if self.is_floating_point() and dim == -1 and self.ndim == 3:
        s = self.detach().double()
        for row in s.reshape(-1, s.shape[-1]):
            fin = row[torch.isfinite(row) & (row > -1e30)]
            if fin.numel() > k:
                v = fin.sort(descending=True).values
                gap = float(v[k - 1] - v[k])
                GAPS.append((gap, gap / max(float(v.abs().max()), 1e-300)))
    return orig(self, k, dim, *a, **kw)


torch.Tensor.topk = topk
for c in probe_runner._REGISTRY:
    GAPS.clear()
    c.run()
    if GAPS:
        ab = min(g[0] for g in GAPS)
        rel = min(g[1] for g in GAPS)
        print(f"{c.name:32s} rows {len(GAPS):5d}  min gap {ab:.3e}  min relative gap {rel:.3e}")
    else:
        print(f"{c.name:32s} no top-k with more than k candidates")
