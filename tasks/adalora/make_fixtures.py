"""Regenerate tests/fixtures for the adalora task: inputs and options only.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of ``adalora-finetune/`` with the golden files applied.
Everything is seeded and in float64, so two runs write the same data. The reference's outputs (forward
outputs and gradients, importance statistics, thresholds, masked singular values) are computed by the probes
and stored outside the sandbox, in tests/expected/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn as nn

from adalora.layers import SVDLinear

DT = torch.float64


# ---------------------------------------------------------------- implementation 1: SVDLinear.forward
def forward_case(gen, *, x_shape, out_f, r, alpha, fan_in_fan_out=False, bias=True, ranknum=None,
                 scale_e=1.0, scale_x=1.0, zero_e=(), dropout_mask=False):
    in_f = x_shape[-1]
    layer = SVDLinear(in_f, out_f, r=r, lora_alpha=alpha, fan_in_fan_out=fan_in_fan_out, bias=bias, dtype=DT)
    state = {"weight": torch.randn(layer.weight.shape, generator=gen, dtype=DT)}
    if bias:
        state["bias"] = torch.randn(out_f, generator=gen, dtype=DT)
    if r > 0:
        state["lora_A"] = torch.randn(r, in_f, generator=gen, dtype=DT)
        e = torch.randn(r, 1, generator=gen, dtype=DT) * scale_e
        for i in zero_e:
            e[i] = 0.0
        state["lora_E"] = e
        state["lora_B"] = torch.randn(out_f, r, generator=gen, dtype=DT)
        state["ranknum"] = torch.tensor(float(r) if ranknum is None else float(ranknum), dtype=DT)
    layer.load_state_dict(state)
    x = torch.randn(x_shape, generator=gen, dtype=DT) * scale_x
    mask = None
    if dropout_mask:
        mask = (torch.rand(x_shape, generator=gen, dtype=DT) > 0.5).to(DT) * 2.0
    cot = torch.randn(x_shape[:-1] + (out_f,), generator=gen, dtype=DT)  # the output's shape
    config = {"in_features": in_f, "out_features": out_f, "r": r, "lora_alpha": alpha,
              "fan_in_fan_out": fan_in_fan_out, "bias": bias}
    return {"config": config, "state": state, "x": x, "dropout_mask": mask, "cotangent": cot}


def forward_cases() -> list[dict]:
    gen = torch.Generator().manual_seed(20230318)
    cases = [
        forward_case(gen, x_shape=(7, 5), out_f=3, r=4, alpha=8.0),
        forward_case(gen, x_shape=(2, 3, 6), out_f=4, r=2, alpha=1.0),
        forward_case(gen, x_shape=(1, 5), out_f=3, r=3, alpha=16.0),           # batch of one
        forward_case(gen, x_shape=(1, 1, 4), out_f=2, r=2, alpha=2.0),
        forward_case(gen, x_shape=(5,), out_f=3, r=4, alpha=8.0),              # no leading dimension
        forward_case(gen, x_shape=(6, 4), out_f=7, r=3, alpha=4.0, fan_in_fan_out=True),
        forward_case(gen, x_shape=(2, 5, 3), out_f=5, r=2, alpha=6.0, fan_in_fan_out=True, bias=False),
        forward_case(gen, x_shape=(4, 6), out_f=3, r=5, alpha=12.0, bias=False),
        forward_case(gen, x_shape=(4, 6), out_f=3, r=5, alpha=0.0),            # alpha <= 0: scaling = r
        forward_case(gen, x_shape=(3, 8), out_f=4, r=6, alpha=12.0, ranknum=3.0, zero_e=(1, 4)),  # after pruning
        forward_case(gen, x_shape=(3, 4), out_f=4, r=2, alpha=2.0, ranknum=0.25),
        forward_case(gen, x_shape=(5, 4), out_f=3, r=1, alpha=3.0),            # a single triplet
        forward_case(gen, x_shape=(3, 5), out_f=2, r=4, alpha=8.0, scale_e=1e4, scale_x=1e3),  # extreme values
        forward_case(gen, x_shape=(3, 5), out_f=2, r=4, alpha=8.0, scale_e=1e-6),
        forward_case(gen, x_shape=(4, 3), out_f=5, r=0, alpha=8.0),            # no adapter
        forward_case(gen, x_shape=(2, 2, 5), out_f=3, r=0, alpha=1.0, fan_in_fan_out=True),
        forward_case(gen, x_shape=(6, 5), out_f=4, r=3, alpha=6.0, dropout_mask=True),
        forward_case(gen, x_shape=(2, 3, 4), out_f=4, r=2, alpha=2.0, fan_in_fan_out=True, dropout_mask=True),
    ]
    for _ in range(12):  # random shapes
        in_f, out_f, r = (int(v) for v in torch.randint(1, 9, (3,), generator=gen))
        lead = tuple(int(v) for v in torch.randint(1, 5, (int(torch.randint(0, 3, (1,), generator=gen)),), generator=gen))
        alpha = float(torch.randint(0, 17, (1,), generator=gen))
        fifo = bool(torch.randint(0, 2, (1,), generator=gen))
        bias = bool(torch.randint(0, 2, (1,), generator=gen))
        cases.append(forward_case(gen, x_shape=lead + (in_f,), out_f=out_f, r=r, alpha=alpha,
                                  fan_in_fan_out=fifo, bias=bias))
    return cases


# ---------------------------------------------------------------- implementation 2: RankAllocator
class ToyAdapted(nn.Module):
    """Several adapted layers of different shapes and ranks, a layer without adapter, and a plain head."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = SVDLinear(5, 4, r=3, lora_alpha=6.0, dtype=DT)
        self.blocks = nn.ModuleList([
            SVDLinear(4, 6, r=2, lora_alpha=4.0, dtype=DT),
            SVDLinear(6, 4, r=4, lora_alpha=8.0, fan_in_fan_out=True, dtype=DT),
            SVDLinear(4, 4, r=0, dtype=DT),
        ])
        self.head = nn.Linear(4, 2, dtype=DT)


def lora_names(model: nn.Module) -> list[str]:
    return [n for n, _ in model.named_parameters() if n.rsplit(".", 1)[-1] in ("lora_A", "lora_E", "lora_B")]


def allocator_trace(beta1: float, beta2: float, seed: int, n_steps: int = 5, skip: dict | None = None) -> dict:
    """Random parameters and gradients for several steps of update_ipt (a missing gradient where `skip` says)."""
    gen = torch.Generator().manual_seed(seed)
    model = ToyAdapted()
    steps = []
    for t in range(n_steps):
        params, grads = {}, {}
        for name, p in model.named_parameters():
            with torch.no_grad():
                p.copy_(torch.randn(p.shape, generator=gen, dtype=DT))
            params[name] = p.detach().clone()
            if skip and t in skip and name in skip[t]:
                p.grad = None
            else:
                p.grad = torch.randn(p.shape, generator=gen, dtype=DT) * (1.0 + t)
                grads[name] = p.grad.clone()
        steps.append({"params": params, "grads": grads})
    return {"beta1": beta1, "beta2": beta2, "steps": steps}


def mask_cases() -> list[dict]:
    gen = torch.Generator().manual_seed(2303)
    cases = []
    for budget in (11, 9, 8, 7, 5, 3, 1, 0):
        model = ToyAdapted()
        state = {}
        for name, p in model.named_parameters():
            state[name] = torch.randn(p.shape, generator=gen, dtype=DT)
        model.load_state_dict(state, strict=False)
        exp_avg_ipt, exp_avg_unc = {}, {}
        for name in lora_names(model):
            shape = dict(model.named_parameters())[name].shape
            exp_avg_ipt[name] = torch.rand(shape, generator=gen, dtype=DT)
            exp_avg_unc[name] = torch.rand(shape, generator=gen, dtype=DT) * 0.1
        cases.append({"budget": budget, "state": state, "exp_avg_ipt": exp_avg_ipt, "exp_avg_unc": exp_avg_unc})
    return cases


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(forward_cases(), out / "forward_cases.pt")
    traces = [
        allocator_trace(0.85, 0.85, seed=1),
        allocator_trace(0.5, 0.7, seed=2),
        allocator_trace(0.9, 0.3, seed=3, skip={2: {"embed.lora_A", "blocks.1.lora_E", "head.weight"}}),
    ]
    torch.save(traces, out / "allocator_traces.pt")
    torch.save(mask_cases(), out / "mask_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
