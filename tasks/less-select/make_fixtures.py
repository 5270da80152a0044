"""Regenerate tests/fixtures for less-select/1 (inputs and options only; outputs go to tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/less_cases.pt: pools and validation sets (token tensors), warmup checkpoints (made by the
repository's `warmup_train`, which no target touches), Adam states and feature tensors. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from less.checkpoints import warmup_train
from less.config import ModelConfig, WarmupConfig
from less.data import make_pool, make_validation
from less.model import TinyLoRALM


def examples(pool) -> list[dict]:
    return [{"input_ids": z.input_ids, "labels": z.labels, "family": z.family} for z in pool]


def checkpoints(cks) -> list[dict]:
    return [{"params": c.params, "exp_avg": c.adam.exp_avg, "exp_avg_sq": c.adam.exp_avg_sq, "step": c.adam.step,
             "betas": list(c.adam.betas), "eps": c.adam.eps, "lr": c.lr, "epoch": c.epoch} for c in cks]


def setups() -> list[dict]:
    """Small LESS runs: model, pool, validation subtasks, warmup checkpoints."""
    out = []
    specs = [  # (model config, pool size, seed, target families, val per task, warmup config)
        (ModelConfig(), 16, 1, ("reverse", "sort"), 3, WarmupConfig(epochs=3, batch_size=4)),
        (ModelConfig(dim=6, rank=3, seed=2), 12, 2, ("copy",), 2, WarmupConfig(epochs=2, lr_schedule="constant",
                                                                              lr=5e-2, seed=3)),
        (ModelConfig(vocab_size=12, dim=5, rank=1, seed=4), 20, 3, ("const", "reverse", "copy"), 2,
         WarmupConfig(epochs=4, batch_size=3, betas=(0.8, 0.99), eps=1e-6, seed=5)),
    ]
    for config, n, seed, targets, per_task, warmup in specs:
        pool = make_pool(n, seed=seed, vocab_size=config.vocab_size)
        validation = make_validation(targets, per_task, seed=seed + 100, vocab_size=config.vocab_size)
        model = TinyLoRALM(config)
        warm = make_pool(8, seed=seed + 200, vocab_size=config.vocab_size)
        out.append({"config": [config.vocab_size, config.dim, config.rank, config.seed],
                    "pool": examples(pool), "validation": {k: examples(v) for k, v in validation.items()},
                    "checkpoints": checkpoints(warmup_train(model, warm, warmup))})
    return out


def adam_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n, shapes, step, betas, eps in ((3, {"a": (4, 2), "b": (2, 5)}, 7, (0.9, 0.999), 1e-8),
                                        (1, {"a": (3,), "b": (2, 2)}, 0, (0.9, 0.999), 1e-8),
                                        (5, {"b": (2, 3), "a": (6,)}, 2, (0.8, 0.95), 1e-2),
                                        (4, {"a": (5, 1), "b": (1, 4)}, 40, (0.5, 0.9), 0.3)):
        names = ["a", "b"]
        p = sum(torch.Size(s).numel() for s in shapes.values())
        scale = torch.rand(p, generator=g, dtype=torch.float64) * 2
        cases.append({
            "names": names,
            "grads": torch.randn(n, p, generator=g, dtype=torch.float64) * scale,
            "exp_avg": {k: 0.1 * torch.randn(s, generator=g, dtype=torch.float64) * (step > 0) for k, s in shapes.items()},
            "exp_avg_sq": {k: 0.01 * torch.rand(s, generator=g, dtype=torch.float64) * (step > 0) for k, s in shapes.items()},
            "step": step, "betas": list(betas), "eps": eps})
    return cases


def influence_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for n_ck, n, j, d in ((1, 1, 1, 3), (3, 7, 2, 5), (4, 10, 3, 16), (2, 5, 4, 2)):
        cases.append({"train": torch.randn(n_ck, n, d, generator=g, dtype=torch.float64) *
                      torch.rand(n_ck, n, 1, generator=g, dtype=torch.float64) * 10,
                      "val": torch.randn(n_ck, j, d, generator=g, dtype=torch.float64),
                      "lrs": torch.rand(n_ck, generator=g, dtype=torch.float64) * 0.05})
    return cases


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(20240206)
    torch.save({"setups": setups(), "adam": adam_cases(g), "influence": influence_cases(g)}, out / "less_cases.pt")


if __name__ == "__main__":
    main()
