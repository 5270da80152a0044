"""Probe for hrm/1: `hrm_forward`, `act_segment` and `train_batch` in hrmlet/hrm.py. Emits outputs only."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from lmrbench_probe import case
from hrmlet.config import HRMConfig
from hrmlet.hrm import act_segment, hrm_forward, train_batch
from hrmlet.model import HRMNet

F64 = torch.float64
TOL = dict(rtol=1e-9, atol=1e-11)
# The losses may be computed in float32 (a float32 path is an equivalent formulation, issue #9): the cases that
# return a loss, its gradients or weights after optimizer steps accept float32 rounding (measured on a float32-loss answer:
# 1.4e-6 relative beyond atol; the forward cases stay at float64 tolerance).
LOSS_TOL = dict(rtol=1e-5, atol=1e-8, outputs={"loss": {"dtype": False}})


def build(seed: int = 0, **kw) -> HRMNet:
    cfg = HRMConfig(**kw)
    torch.manual_seed(seed)
    return HRMNet(cfg).to(F64)


def data(net: HRMNet, batch: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    cfg = net.cfg
    x = torch.randint(0, cfg.vocab_size, (batch, cfg.seq_len), generator=g)
    return x, x.sort(dim=1).values


def grads(net: HRMNet) -> dict:
    out = {}
    for name, p in net.named_parameters():
        out[f"grad.{name}"] = torch.zeros_like(p) if p.grad is None else p.grad.detach().clone()
    return out


CASES = json.loads((Path(__file__).parent / "fixtures" / "hrm_cases.json").read_text())
SCHEDULES = [tuple(s) for s in CASES["schedules"]]


@case(params=range(len(SCHEDULES)), **TOL)
def forward_schedule(i):
    n, t = SCHEDULES[i]
    net = build(seed=i, n_cycles=n, t_steps=t)
    x, y = data(net, 3, 10 + i)
    g = torch.Generator().manual_seed(20 + i)
    z_h = torch.randn(3, net.cfg.seq_len, net.cfg.d_model, generator=g, dtype=F64)
    z_l = torch.randn(3, net.cfg.seq_len, net.cfg.d_model, generator=g, dtype=F64)
    zh, zl, logits, q = hrm_forward(net, z_h.clone(), z_l.clone(), x)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1)) + q.sum()
    loss.backward()
    return {"z_h": zh.detach(), "z_l": zl.detach(), "logits": logits.detach(), "q": q.detach(),
            "z_h_in_unchanged": z_h, **grads(net)}


@case(**TOL)
def forward_gradient_paths():
    net = build(seed=3, n_cycles=2, t_steps=2)
    x, _ = data(net, 2, 4)
    z_h, z_l = net.initial_state(2)
    zh, zl, logits, q = hrm_forward(net, z_h, z_l, x)
    net.zero_grad()
    zl.sum().backward(retain_graph=True)
    low_only = grads(net)
    net.zero_grad()
    zh.pow(2).sum().backward()
    out = {f"zl.{k}": v for k, v in low_only.items()}
    out.update({f"zh.{k}": v for k, v in grads(net).items()})
    return out


@case(params=[(0, 1), (-1, 0)])
def forward_rejects(bad):
    n, t = bad
    net = build(seed=0)
    net.cfg.n_cycles, net.cfg.t_steps = n, t
    x, _ = data(net, 1, 0)
    z_h, z_l = net.initial_state(1)
    return {"result": hrm_forward(net, z_h, z_l, x)}


SEGMENTS = CASES["segments"]


@case(params=range(len(SEGMENTS)), **LOSS_TOL)
def segment_act(i):
    m, mins, bias, mmax = SEGMENTS[i]
    net = build(seed=30 + i, max_segments=mmax)
    with torch.no_grad():
        net.q_head.bias.copy_(torch.tensor(bias, dtype=F64))
    x, y = data(net, 3, 40 + i)
    if i == 0:
        y = net.head(hrm_forward(net, *net.initial_state(3), x)[0]).argmax(-1).detach()
        y[2, 0] = (y[2, 0] + 1) % net.cfg.vocab_size
    z_h, z_l = net.initial_state(3)
    out = act_segment(net, z_h, z_l, x, y, m, torch.tensor(mins))
    out["loss"].backward()
    return {"loss": out["loss"].detach(), "halt": out["halt"], "q_target": out["q_target"],
            "z_h": out["z_h"], "z_l": out["z_l"], "z_h_detached": not out["z_h"].requires_grad,
            "z_l_detached": not out["z_l"].requires_grad, "logits": out["logits"].detach(),
            "q": out["q"].detach(), **grads(net)}


@case(params=[(2, 0.0, 0), (3, 1.0, 1), (4, 0.5, 2)], **LOSS_TOL)
def train_loop(p):
    mmax, eps, seed = p
    net = build(seed=50 + seed, max_segments=mmax, explore_prob=eps)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    gen = torch.Generator().manual_seed(seed)
    res = {}
    for step in range(2):
        x, y = data(net, 4, 60 + 2 * seed + step)
        res[f"losses.{step}"] = torch.tensor(train_batch(net, opt, x, y, gen), dtype=F64)
    res["gen_after"] = torch.rand(3, generator=gen, dtype=F64)
    res.update({f"w.{k}": v.detach().clone() for k, v in net.named_parameters()})
    return res


@case(**LOSS_TOL)
def train_loop_halts_early():
    net = build(seed=70, max_segments=4, explore_prob=0.0)
    with torch.no_grad():
        net.q_head.bias.copy_(torch.tensor([8.0, -8.0], dtype=F64))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x, y = data(net, 3, 71)
    losses = train_batch(net, opt, x, y, torch.Generator().manual_seed(5))
    return {"losses": torch.tensor(losses, dtype=F64), "n": len(losses),
            **{f"w.{k}": v.detach().clone() for k, v in net.named_parameters()}}


@case(**LOSS_TOL)
def segment_q_tie():
    net = build(seed=80, max_segments=4)
    with torch.no_grad():
        net.q_head.weight.zero_()
        net.q_head.bias.copy_(torch.tensor([0.25, 0.25], dtype=F64))
    x, y = data(net, 2, 81)
    out = act_segment(net, *net.initial_state(2), x, y, 2, torch.tensor([1, 1]))
    return {"halt": out["halt"], "q_target": out["q_target"], "loss": out["loss"].detach()}
