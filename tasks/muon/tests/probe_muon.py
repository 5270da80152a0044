"""Probe for muon/1: `orthogonalize` and the optimizer `Muon` in moonlet/muon.py. Runs in the sandbox; emits
outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_muon.py add hand-checked values and the properties the method description states."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from moonlet.config import ModelConfig, OptimConfig
from moonlet.grouping import param_groups
from moonlet.model import TinyLM
from moonlet.muon import Muon, orthogonalize
from train import build, train, train_step

FIXTURES = Path(__file__).parent / "fixtures"
ORTHO = torch.load(FIXTURES / "ortho_cases.pt", weights_only=True)
MUON = torch.load(FIXTURES / "muon_cases.pt", weights_only=True)
ADAMW = torch.load(FIXTURES / "adamw_cases.pt", weights_only=True)
F64 = torch.float64
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-10, atol=1e-12)
TOL32 = {"f32.*": dict(rtol=1e-4, atol=1e-5)}


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == torch.float32 else ""


def f64(x: torch.Tensor) -> torch.Tensor:
    return x.detach().to(F64)


# ---------------------------------------------------------------- orthogonalize


@case(params=range(len(ORTHO)), **TOL64, outputs=TOL32)
def ortho_matches_reference(i):
    c = ORTHO[i]
    out = orthogonalize(c["G"].clone(), c["steps"], c["eps"])
    return {f"{prefix(c['G'].dtype)}out": out, "G": f64(c["G"]), "steps": c["steps"], "eps": c["eps"]}


@case(rtol=1e-10, atol=1e-12)
def ortho_hand_values():
    return {"diag34": orthogonalize(torch.tensor([[3.0, 0.0], [0.0, 4.0]], dtype=F64)),
            "unit_one_step": orthogonalize(torch.tensor([[0.0, 2.0, 0.0]], dtype=F64), steps=1, eps=0.0),
            "eps_one_step": orthogonalize(torch.tensor([[1.0]], dtype=F64), steps=1, eps=1.0),
            "zero": orthogonalize(torch.zeros(3, 2, dtype=F64)),
            "steps0": orthogonalize(torch.tensor([[3.0, 4.0]], dtype=F64), steps=0, eps=0.0)}


@case(rtol=1e-9, atol=1e-11)
def ortho_equivariances():
    g = torch.Generator().manual_seed(7)
    G = torch.randn(5, 3, generator=g, dtype=F64)
    q1, _ = torch.linalg.qr(torch.randn(5, 5, generator=g, dtype=F64))
    q2, _ = torch.linalg.qr(torch.randn(3, 3, generator=g, dtype=F64))
    return {"base": orthogonalize(G), "transposed": orthogonalize(G.T.contiguous()),
            "scaled": orthogonalize(4.0 * G, eps=0.0), "base_eps0": orthogonalize(G, eps=0.0),
            "rotated": orthogonalize(q1 @ G @ q2), "q1": q1, "q2": q2,
            "stacked": orthogonalize(torch.stack([G, 3.0 * G.flip(0)])), "flipped": orthogonalize(3.0 * G.flip(0))}


@case(params=["vector", "scalar", "negative_steps"])
def ortho_rejects(kind):
    if kind == "vector":
        return {"result": orthogonalize(torch.ones(4))}
    if kind == "scalar":
        return {"result": orthogonalize(torch.tensor(2.0))}
    return {"result": orthogonalize(torch.ones(2, 2), steps=-1)}


# ---------------------------------------------------------------- Muon groups


def muon_param_run(c: dict) -> dict:
    w = torch.nn.Parameter(c["w0"].clone())
    opt = Muon([{"params": [w], "use_muon": True}], lr=c["lr"], weight_decay=c["weight_decay"],
               momentum=c["momentum"], nesterov=c["nesterov"], ns_steps=c["ns_steps"], rms_scale=c["rms_scale"])
    weights, buffers = [], []
    for grad in c["grads"]:
        w.grad = grad.clone()
        opt.step()
        weights.append(w.detach().clone())
        buffers.append(opt.state[w]["momentum_buffer"].detach().clone())
    p = prefix(c["w0"].dtype)
    return {f"{p}weights": torch.stack(weights), f"{p}buffers": torch.stack(buffers),
            "w0": f64(c["w0"]), "grads": f64(c["grads"]), "buffer_dtype": str(buffers[0].dtype),
            **{k: c[k] for k in ("lr", "weight_decay", "momentum", "nesterov", "ns_steps", "rms_scale")}}


@case(params=range(len(MUON)), **TOL64, outputs=TOL32)
def muon_steps_match_reference(i):
    return muon_param_run(MUON[i])


@case(rtol=1e-10, atol=1e-12)
def muon_hand_values():
    w = torch.nn.Parameter(torch.tensor([[1.0, 2.0], [-1.0, 0.5]], dtype=F64))
    opt = Muon([{"params": [w], "use_muon": True}], lr=0.1, weight_decay=0.5, momentum=0.5, nesterov=True)
    w.grad = torch.tensor([[3.0, 0.0], [0.0, 4.0]], dtype=F64)
    opt.step()
    first = w.detach().clone()
    first_buffer = opt.state[w]["momentum_buffer"].clone()
    w.grad = torch.tensor([[0.0, 0.0], [0.0, -2.0]], dtype=F64)
    opt.step()
    return {"first": first, "first_buffer": first_buffer, "second": w.detach().clone(),
            "second_buffer": opt.state[w]["momentum_buffer"].clone()}


@case(rtol=1e-12, atol=1e-14)
def muon_zero_gradient():
    w = torch.nn.Parameter(torch.tensor([[1.0, -2.0, 3.0], [0.5, 0.0, -1.0]], dtype=F64))
    opt = Muon([{"params": [w], "use_muon": True}], lr=0.1, weight_decay=0.2)
    w.grad = torch.zeros_like(w)
    opt.step()
    return {"weights": w.detach().clone(), "buffer": opt.state[w]["momentum_buffer"].clone()}


@case(rtol=1e-9, atol=1e-11)
def muon_update_rms():
    g = torch.Generator().manual_seed(11)
    out = {}
    for a, b in ((64, 64), (32, 128), (128, 32), (96, 24)):
        w = torch.nn.Parameter(torch.zeros(a, b, dtype=F64))
        opt = Muon([{"params": [w], "use_muon": True}], lr=1.0, weight_decay=0.0)
        w.grad = torch.randn(a, b, generator=g, dtype=F64)
        opt.step()
        out[f"rms_{a}x{b}"] = w.detach().pow(2).mean().sqrt()
    return out


# ---------------------------------------------------------------- AdamW groups


@case(params=range(len(ADAMW)), **TOL64, outputs=TOL32)
def adamw_matches_torch(i):
    c = ADAMW[i]
    ours = [torch.nn.Parameter(w.clone()) for w in c["w0"]]
    theirs = [torch.nn.Parameter(w.clone()) for w in c["w0"]]
    kw = dict(lr=c["lr"], weight_decay=c["weight_decay"], betas=tuple(c["betas"]), eps=c["eps"])
    opt = Muon([{"params": ours, "use_muon": False}], **kw)
    ref = torch.optim.AdamW(theirs, foreach=False, **kw)
    for k in range(c["grads"][0].shape[0]):
        for p, q, grads in zip(ours, theirs, c["grads"]):
            p.grad, q.grad = grads[k].clone(), grads[k].clone()
        opt.step()
        ref.step()
    p = prefix(c["w0"][0].dtype)
    return {f"{p}ours": [w.detach() for w in ours], f"{p}torch": [w.detach() for w in theirs]}


# ---------------------------------------------------------------- one optimizer, several groups


def mixed_setup():
    g = torch.Generator().manual_seed(5)
    shapes = [(4, 6), (6, 4), (3, 3), (5,), (2, 3), (4,)]
    ps = [torch.nn.Parameter(torch.randn(*s, generator=g, dtype=F64)) for s in shapes]
    groups = [{"params": ps[0:2], "use_muon": True},
              {"params": ps[2:3], "use_muon": True, "lr": 0.05, "momentum": 0.5, "nesterov": False, "ns_steps": 3,
               "rms_scale": 0.4},
              {"params": ps[3:5], "use_muon": False, "weight_decay": 0.0, "betas": (0.8, 0.9)},
              {"params": ps[5:], "use_muon": False, "lr": 0.001, "eps": 1e-4}]
    opt = Muon(groups, lr=0.02, weight_decay=0.1)
    grads = [[torch.randn(*s, generator=g, dtype=F64) for s in shapes] for _ in range(4)]
    return ps, opt, grads


@case(**TOL64)
def mixed_groups():
    ps, opt, grads = mixed_setup()
    history = []
    for k, step_grads in enumerate(grads):
        for j, (p, grad) in enumerate(zip(ps, step_grads)):
            # parameter 1 (Muon) and 4 (AdamW) have no gradient at step 2; the learning rates change every step
            p.grad = None if k == 1 and j in (1, 4) else grad.clone()
        for group in opt.param_groups:
            group["lr"] *= 0.5 if k > 0 else 1.0
        opt.step()
        history.append([p.detach().clone() for p in ps])
    return {"history": history, "all_have_state": all(len(opt.state[p]) > 0 for p in ps)}


def none_grad_setup():
    g = torch.Generator().manual_seed(9)
    a = torch.nn.Parameter(torch.randn(3, 4, generator=g, dtype=F64))
    b = torch.nn.Parameter(torch.randn(4, generator=g, dtype=F64))
    c = torch.nn.Parameter(torch.randn(2, 2, generator=g, dtype=F64))
    opt = Muon([{"params": [a, c], "use_muon": True}, {"params": [b], "use_muon": False}], lr=0.1)
    return a, b, c, opt, torch.randn(2, 2, generator=g, dtype=F64)


@case(**TOL64)
def none_grad_leaves_parameter_alone():
    a, b, c, opt, grad = none_grad_setup()
    before = [a.detach().clone(), b.detach().clone()]
    c.grad = grad
    result = opt.step()
    return {"a": a.detach(), "b": b.detach(), "a_before": before[0], "b_before": before[1],
            "c_has_state": len(opt.state[c]) > 0, "returned_none": result is None}


def snapshot(state: dict) -> dict:
    return {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in state.items()}


@case(compare="none")  # whether state exists before the first step is the implementation's choice
def none_grad_leaves_state_alone():
    a, b, c, opt, grad = none_grad_setup()
    before = {"a": snapshot(opt.state[a]), "b": snapshot(opt.state[b])}
    c.grad = grad
    opt.step()
    return {"before": before, "after": {"a": snapshot(opt.state[a]), "b": snapshot(opt.state[b])}}


@case(**TOL64)
def closure_is_evaluated():
    g = torch.Generator().manual_seed(13)
    w = torch.nn.Parameter(torch.randn(3, 5, generator=g, dtype=F64))
    v = torch.nn.Parameter(torch.randn(5, generator=g, dtype=F64))
    x = torch.randn(7, 5, generator=g, dtype=F64)
    opt = Muon([{"params": [w], "use_muon": True}, {"params": [v], "use_muon": False}], lr=0.05)
    calls = []

    def closure():
        calls.append(torch.is_grad_enabled())
        opt.zero_grad()
        loss = ((x @ w.T).tanh().sum(0) ** 2).sum() + (v * x).sum() ** 2 / 10
        loss.backward()
        return loss

    losses = [opt.step(closure) for _ in range(3)]
    return {"losses": torch.stack([loss.detach() for loss in losses]), "calls": len(calls),
            "grad_enabled": all(calls), "w": w.detach(), "v": v.detach()}


@case(**TOL64)
def state_dict_resumes():
    def model_and_opt():
        torch.manual_seed(3)
        model = TinyLM(ModelConfig(d_model=16, n_heads=2, n_layers=1, d_ff=24, vocab_size=20)).to(F64)
        return model, Muon(param_groups(model, OptimConfig()), lr=0.02, weight_decay=0.1)

    g = torch.Generator().manual_seed(4)
    batches = [torch.randint(0, 20, (2, 9), generator=g) for _ in range(5)]

    def steps(model, opt, todo):
        for batch in todo:
            opt.zero_grad()
            model.loss(batch).backward()
            opt.step()

    model, opt = model_and_opt()
    steps(model, opt, batches)
    straight = [p.detach().clone() for p in model.parameters()]
    model, opt = model_and_opt()
    steps(model, opt, batches[:3])
    saved_model = {k: v.clone() for k, v in model.state_dict().items()}
    saved_opt = opt.state_dict()
    model2, opt2 = model_and_opt()
    model2.load_state_dict(saved_model)
    opt2.load_state_dict(saved_opt)
    steps(model2, opt2, batches[3:])
    return {"straight": straight, "resumed": [p.detach().clone() for p in model2.parameters()]}


# ---------------------------------------------------------------- construction and validation

BAD = {"lr": dict(lr=-1e-3), "weight_decay": dict(weight_decay=-0.1), "momentum_one": dict(momentum=1.0),
       "momentum_negative": dict(momentum=-0.1), "ns_steps": dict(ns_steps=0), "rms_scale": dict(rms_scale=0.0),
       "beta1": dict(betas=(1.0, 0.95)), "beta2": dict(betas=(0.9, -0.5)), "eps": dict(eps=-1e-8)}


@case(params=sorted(BAD))
def constructor_rejects_hyperparameter(name):
    w = torch.nn.Parameter(torch.ones(2, 2))
    return {"result": Muon([{"params": [w], "use_muon": True}], **BAD[name])}


@case(params=sorted(BAD))
def group_rejects_hyperparameter(name):
    w = torch.nn.Parameter(torch.ones(2, 2))
    return {"result": Muon([{"params": [w], "use_muon": True, **BAD[name]}])}


@case(params=["no_flag", "vector_in_muon", "tensor3d_in_muon"])
def constructor_rejects_group(kind):
    w = torch.nn.Parameter(torch.ones(2, 2))
    groups = {"no_flag": [{"params": [w]}],
              "vector_in_muon": [{"params": [w], "use_muon": True},
                                 {"params": [torch.nn.Parameter(torch.ones(3))], "use_muon": True}],
              "tensor3d_in_muon": [{"params": [torch.nn.Parameter(torch.ones(2, 2, 2))], "use_muon": True}]}
    return {"result": Muon(groups[kind])}


@case
def add_param_group_later():
    w = torch.nn.Parameter(torch.ones(2, 3))
    opt = Muon([{"params": [w], "use_muon": True}], lr=0.3, weight_decay=0.0, ns_steps=4)
    v = torch.nn.Parameter(torch.ones(3))
    opt.add_param_group({"params": [v], "use_muon": False, "weight_decay": 0.25})
    errors = []
    for bad in ({"params": [torch.nn.Parameter(torch.ones(3))], "use_muon": True},
                {"params": [torch.nn.Parameter(torch.ones(2, 2))]},
                {"params": [torch.nn.Parameter(torch.ones(2, 2))], "use_muon": False, "lr": -1.0}):
        try:
            opt.add_param_group(bad)
            errors.append("none")
        except ValueError:
            errors.append("ValueError")
    last = opt.param_groups[1]
    return {"errors": errors, "lr": last["lr"], "weight_decay": last["weight_decay"], "use_muon": last["use_muon"],
            "ns_steps": last["ns_steps"], "betas": list(last["betas"]), "eps": last["eps"]}


@case
def defaults():
    w = torch.nn.Parameter(torch.ones(2, 2))
    d = Muon([{"params": [w], "use_muon": True}]).param_groups[0]
    return {k: (list(d[k]) if k == "betas" else d[k])
            for k in ("lr", "weight_decay", "momentum", "nesterov", "ns_steps", "rms_scale", "betas", "eps")}


# ---------------------------------------------------------------- the method end to end, through train.py


@case(params=[F64, torch.float32], ids=["f64", "f32"], rtol=1e-8, atol=1e-10,
      outputs={"f32.*": dict(rtol=1e-4, atol=2e-5)})
def train_with_muon(dtype):
    cfg = OptimConfig(total_steps=6, warmup_steps=2)
    run, losses = train(ModelConfig(), cfg, steps=5, batch_size=4, seq_len=12, seed=1, dtype=dtype)
    p = prefix(dtype)
    return {f"{p}losses": torch.tensor(losses, dtype=F64),
            f"{p}params": torch.cat([q.detach().reshape(-1) for q in run.model.parameters()]),
            "lrs": [group["lr"] for group in run.optimizer.param_groups]}


@case(rtol=1e-8, atol=1e-10)
def train_without_clip_or_nesterov():
    cfg = OptimConfig(total_steps=4, warmup_steps=1, nesterov=False, grad_clip=None, momentum=0.9,
                      no_decay_vectors=False)
    run = build(ModelConfig(d_model=24, n_heads=3, d_ff=40), cfg, seed=2, dtype=F64)
    g = torch.Generator().manual_seed(6)
    losses = [train_step(run, torch.randint(0, 48, (3, 10), generator=g)) for _ in range(4)]
    return {"losses": torch.tensor(losses, dtype=F64),
            "params": torch.cat([q.detach().reshape(-1) for q in run.model.parameters()])}


@case
def zero_lr_and_eps_are_in_range():
    # add_param_group's docstring: out of range means lr < 0 and eps < 0, so 0 is a valid value of both
    w = torch.nn.Parameter(torch.ones(2, 2, dtype=F64))
    b = torch.nn.Parameter(torch.ones(2, dtype=F64))
    opt = Muon([{"params": [w], "use_muon": True}, {"params": [b], "use_muon": False, "eps": 0.0}], lr=0.0)
    return {"groups": len(opt.param_groups), "lr": opt.param_groups[0]["lr"], "eps": opt.param_groups[1]["eps"]}
