"""Regenerate tests/fixtures for dola/1 from the reference implementation.

Run from a copy of the repository with the reference applied:  python make_fixtures.py OUT_DIR
Saves inputs and options only: the reference's outputs are computed by the probe and stored outside the
sandbox, in tests/expected/. The reference is called here only to reject inputs with near-ties.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import torch
from dola.contrast import dola_step
from dola.model import TinyLMConfig, build_model


def layered_logits(
    gen: torch.Generator, n_layers: int, batch: int, vocab: int, scale: float, coupling: float = 1.0
) -> torch.Tensor:
    """Logits for layers 0..n_layers that drift away from the final layer by varying amounts."""
    final = torch.randn(batch, vocab, generator=gen, dtype=torch.float64) * scale
    out = []
    for j in range(n_layers + 1):
        weight = torch.rand(batch, 1, generator=gen, dtype=torch.float64) * coupling
        noise = torch.randn(batch, vocab, generator=gen, dtype=torch.float64) * scale
        out.append(weight * final + (1 - weight) * noise if j < n_layers else final)
    return torch.stack(out)  # (n_layers + 1, batch, vocab)


def extreme_logits(gen: torch.Generator, n_layers: int, batch: int, vocab: int) -> torch.Tensor:
    """Huge logit gaps (hundreds of nats), so many probabilities underflow to exactly 0."""
    final = torch.randn(batch, vocab, generator=gen, dtype=torch.float64) * 300.0
    scales = [0.5, 1.0, 2.0, 300.0]  # at most one underflowing candidate per case
    out = [torch.randn(batch, vocab, generator=gen, dtype=torch.float64) * scales[j % len(scales)]
           for j in range(n_layers)]
    return torch.stack([*out, final])


def well_separated(case: dict, jsd: torch.Tensor) -> bool:
    """No near-tie that a correct but differently rounded implementation could break otherwise."""
    top2 = jsd.topk(min(2, jsd.shape[1]), dim=-1).values
    if top2.shape[1] == 2 and (top2[:, 0] - top2[:, 1]).min() < 1e-6:
        return False
    alpha = case["alpha"]
    if 0.0 < alpha < 1.0:
        q = case["logits"][case["mature_layer"]].softmax(dim=-1)
        ratio = q / (alpha * q.max(dim=-1, keepdim=True).values)
        if ((ratio - 1).abs() < 1e-6).any():
            return False
    return True


def step_case(logits: torch.Tensor, candidates: list[int], mature: int, alpha: float) -> dict | None:
    layer_logits = {j: logits[j] for j in range(logits.shape[0])}
    res = dola_step(layer_logits, candidates, mature, alpha)
    case = {"logits": logits, "candidate_layers": candidates, "mature_layer": mature, "alpha": alpha}
    return case if well_separated(case, res.jsd) else None


def step_cases() -> list[dict]:
    gen = torch.Generator().manual_seed(1234)
    cases = []
    # (n_layers, batch, vocab, candidates, alpha, logit scale)
    specs = [
        (4, 1, 7, [0, 2], 0.1, 2.0),
        (4, 3, 11, [0, 1, 2, 3], 0.1, 3.0),
        (6, 5, 16, [1, 3, 5], 0.25, 2.5),
        (6, 8, 32, [0, 2, 4], 0.05, 4.0),
        (8, 4, 50, [7, 1, 4, 2], 0.5, 3.0),
        (3, 6, 5, [2], 0.1, 2.0),
        (5, 2, 64, [4, 3, 2, 1, 0], 0.1, 1.0),
        (6, 16, 20, [0, 1, 2, 3, 4, 5], 0.3, 5.0),
        (2, 3, 9, [0, 1], 0.9, 2.0),
        (4, 7, 13, [1, 2, 3], 0.0, 3.0),
        (4, 5, 13, [0, 3], 1.0, 3.0),
    ]
    for n_layers, batch, vocab, cands, alpha, scale in specs:
        cases.append(draw(partial(layered_logits, gen, n_layers, batch, vocab, scale), cands, n_layers, alpha))
    for n_layers, batch, vocab, cands, alpha in [(4, 4, 12, [0, 1, 2, 3], 0.1), (6, 5, 8, [0, 1, 2, 5], 0.0)]:
        cases.append(draw(partial(extreme_logits, gen, n_layers, batch, vocab), cands, n_layers, alpha))
    return cases


def draw(sample, candidates: list[int], mature: int, alpha: float) -> dict:
    """Redraw (deterministically) until the case has no near-tie."""
    for _ in range(100):
        case = step_case(sample(), candidates, mature, alpha)
        if case is not None:
            return case
    raise RuntimeError("could not draw a well-separated case")


def generation_cases() -> dict:
    cfg = TinyLMConfig(d_model=16, n_heads=2, n_layers=6, max_len=32)
    model = build_model(seed=7, cfg=cfg)
    gen = torch.Generator().manual_seed(99)
    prompts = torch.randint(4, cfg.vocab_size, (3, 5), generator=gen)
    runs = []
    for cands, alpha in [([0, 2], 0.1), ([4], 0.1), ([0, 1, 2, 3, 4, 5], 0.1), ([1, 3, 5], 0.3), ([0, 2, 4], 0.02)]:
        runs.append({"candidate_layers": cands, "alpha": alpha})
    return {
        "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
        "state_dict": model.state_dict(),
        "prompts": prompts,
        "runs": runs,
    }


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(step_cases(), out / "dola_step_cases.pt")
    torch.save(generation_cases(), out / "dola_generation.pt")


if __name__ == "__main__":
    main(sys.argv[1])
