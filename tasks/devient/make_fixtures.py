"""Write tests/fixtures for devient/1: the inputs and options of the differential cases.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference
``dve/losses.py`` in place (and on PYTHONPATH). Inputs only: the reference's outputs are computed by the
probe and stored outside the sandbox, in tests/expected/. Deterministic.
"""
import sys
from pathlib import Path

import torch

DT = torch.float64


def group_pairs(labels, group_sizes):
    """All (strengthener, weakener) index pairs inside consecutive groups of the given sizes."""
    pairs, start = [], 0
    for size in group_sizes:
        idx = range(start, start + size)
        pairs += [(i, j) for i in idx if labels[i] == 1 for j in idx if labels[j] == 0]
        start += size
    return torch.tensor(pairs, dtype=torch.long).reshape(-1, 2)


def main(out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(2412)
    specs = [
        # group sizes, score scale, logit scale, classification weight
        ([2], 1.0, 1.0, 0.9),                 # one premise/hypothesis with one pair
        ([2, 2, 2], 1.0, 2.0, 0.9),
        ([4, 3, 2], 3.0, 1.0, 0.5),
        ([6, 4], 2.0, 3.0, 0.3),
        ([3, 3, 3, 3], 0.5, 1.0, 0.0),        # ranking only
        ([5, 2], 1.0, 1.0, 1.0),              # classification only
        ([1, 1, 1], 1.0, 1.0, 0.7),           # singleton groups: no pair at all
        ([4, 4], 300.0, 1.0, 0.6),            # huge score differences
        ([8], 1.0, 30.0, 0.8),                # extreme logits
        ([2, 3, 4, 5], 1.5, 1.5, 0.25),
    ]
    cases = []
    for sizes, s_scale, l_scale, w in specs:
        n = sum(sizes)
        labels = (torch.rand(n, generator=g) < 0.5).long()
        # make every group of two or more hold both update types
        start = 0
        for size in sizes:
            if size >= 2:
                labels[start] = 1
                labels[start + 1] = 0
            start += size
        perm = torch.cat([torch.randperm(s, generator=g) + sum(sizes[:k]) for k, s in enumerate(sizes)])
        labels = labels[perm]
        scores = s_scale * torch.randn(n, generator=g, dtype=DT)
        logits = l_scale * torch.randn(n, 2, generator=g, dtype=DT)
        pairs = group_pairs(labels.tolist(), sizes)
        cases.append({"scores": scores, "logits": logits, "labels": labels, "pairs": pairs, "weight": w})
    torch.save(cases, out / "evaluator_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
