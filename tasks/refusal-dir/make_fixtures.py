"""Regenerate tests/fixtures for refusal-dir/1 (inputs only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (on
PYTHONPATH). Trains the tiny chat model of train.py in float64, rounds its weights to multiples of 1/4096 and
stores them as float32 (exact on every host), with the tokenized instruction splits. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from refusal.data import splits
from train import trained_model


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    model, tok = trained_model(dtype=torch.float64, steps=300, seed=0)
    state = {k: (torch.round(v * 4096) / 4096).float() for k, v in model.state_dict().items()}
    data = {}
    for name, (harmful, harmless) in splits(0).items():
        data[name] = {"harmful": list(tok.encode_batch(harmful)), "harmless": list(tok.encode_batch(harmless))}
    torch.save({"state": state, "data": data}, out / "trained.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
