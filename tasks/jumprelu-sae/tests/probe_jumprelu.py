"""Probe for jumprelu-sae/1: JumpReLU, Step, JumpReLUSAE and train_step in jumprelu/sae.py. Runs in the sandbox;
emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_jumprelu.py recompute them from the equations of paper.md."""
from __future__ import annotations

from pathlib import Path

import torch

from jumprelu.config import SAEConfig, TrainConfig
from jumprelu.sae import JumpReLU, JumpReLUSAE, Step, train_step
from lmrbench_probe import case
from train import build

FIXTURES = Path(__file__).parent / "fixtures"
ACT = torch.load(FIXTURES / "activation_cases.pt", weights_only=True)
SAE = torch.load(FIXTURES / "sae_cases.pt", weights_only=True)
PARAMS = ("W_enc", "b_enc", "W_dec", "b_dec", "log_threshold")
F64 = dict(rtol=1e-10, atol=1e-12)
F32 = dict(rtol=1e-4, atol=1e-5)


def f64(x: torch.Tensor) -> torch.Tensor:
    return x.detach().to(torch.float64)


def tol(dtype: torch.dtype | str) -> dict:
    return F32 if dtype in (torch.float32, "float32") else F64


def grads(output: torch.Tensor, inputs: list[torch.Tensor], upstream: torch.Tensor) -> list[torch.Tensor]:
    """d<upstream, output>/d input for each input; an input that gets no gradient gets zeros."""
    found = torch.autograd.grad(output, inputs, upstream, allow_unused=True)
    return [torch.zeros_like(t) if g is None else g for t, g in zip(inputs, found, strict=True)]


# ---------------------------------------------------------------- JumpReLU and Step


def act_id(i: int) -> str:
    c = ACT[i]
    return f"{i}-{tuple(c['z'].shape)}-{str(c['z'].dtype)[6:]}-eps{c['bandwidth']}"


def run_activation(fn, c: dict) -> dict:
    z = c["z"].clone().requires_grad_(True)
    threshold = c["threshold"].clone().requires_grad_(True)
    out = fn.apply(z, threshold, c["bandwidth"])
    grad_z, grad_threshold = grads(out, [z, threshold], c["grad"])
    return {"out": out, "grad_z": grad_z, "grad_threshold": grad_threshold,
            "z": f64(c["z"]), "threshold": f64(c["threshold"]), "bandwidth": c["bandwidth"],
            "upstream": f64(c["grad"])}


@case(params=range(len(ACT)), ids=[act_id(i) for i in range(len(ACT))], **F64,
      outputs={"out": F32, "grad_*": F32})
def jumprelu_matches_reference(i):
    return run_activation(JumpReLU, ACT[i])


@case(params=range(len(ACT)), ids=[act_id(i) for i in range(len(ACT))], **F64,
      outputs={"out": F32, "grad_*": F32})
def step_matches_reference(i):
    return run_activation(Step, ACT[i])


@case(**F64)
def activation_hand_values():
    # theta = (0.5, 1.0), eps = 0.2: entries below, inside and above the window of each threshold
    z = torch.tensor([[0.3, 0.95], [0.45, 1.05], [0.55, 1.2], [0.62, 0.89]], dtype=torch.float64,
                     requires_grad=True)
    theta = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    upstream = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0], [2.0, 1.0]], dtype=torch.float64)
    jump = JumpReLU.apply(z, theta, 0.2)
    step = Step.apply(z, theta, 0.2)
    jz, jt = grads(jump, [z, theta], upstream)
    sz, st = grads(step, [z, theta], upstream)
    return {"jumprelu": jump, "jumprelu_grad_z": jz, "jumprelu_grad_threshold": jt,
            "step": step, "step_grad_z": sz, "step_grad_threshold": st}


# ---------------------------------------------------------------- the SAE


def make_sae(c: dict) -> JumpReLUSAE:
    cfg = SAEConfig(d_model=c["d_model"], d_sae=c["d_sae"], bandwidth=c["bandwidth"], dtype=c["dtype"])
    sae = JumpReLUSAE(cfg, generator=torch.Generator().manual_seed(1))
    sae.load_state_dict({k: v.clone() for k, v in c["params"].items()})
    return sae


def sae_id(i: int) -> str:
    c = SAE[i]
    return f"{i}-B{c['x'].shape[0]}-n{c['d_model']}-M{c['d_sae']}-{c['dtype']}-lam{c['sparsity_coefficient']}"


def echo(c: dict) -> dict:
    """The case's inputs, for the checks."""
    return {"x": f64(c["x"]), "lam": c["sparsity_coefficient"], "eps": c["bandwidth"],
            **{f"param.{k}": f64(v) for k, v in c["params"].items()}}


@case(params=range(len(SAE)), ids=[sae_id(i) for i in range(len(SAE))], **F64, outputs={"f32.*": F32})
def sae_forward(i):
    c = SAE[i]
    sae = make_sae(c)
    out = sae(c["x"].clone())
    threshold = sae.threshold
    (g,) = grads(threshold, [sae.log_threshold], torch.ones_like(threshold))
    x3 = c["x"][: 2 * (c["x"].shape[0] // 2)].reshape(2, -1, c["d_model"]) if c["x"].shape[0] > 1 else c["x"][None]
    out3 = sae(x3.clone())
    p = "f32." if c["dtype"] == "float32" else ""
    return {f"{p}pre_activations": out.pre_activations, f"{p}features": out.features,
            f"{p}reconstruction": out.reconstruction, f"{p}threshold": threshold, f"{p}dthreshold_dlog": g,
            f"{p}batched.features": out3.features, f"{p}batched.reconstruction": out3.reconstruction,
            f"{p}encode": list(sae.encode(c["x"].clone())), f"{p}decode": sae.decode(out.features),
            **echo(c)}


@case(params=range(len(SAE)), ids=[sae_id(i) for i in range(len(SAE))], **F64, outputs={"f32.*": F32})
def sae_loss(i):
    c = SAE[i]
    sae = make_sae(c)
    terms = sae.loss(c["x"].clone(), c["sparsity_coefficient"])
    params = [getattr(sae, k) for k in PARAMS]
    found = grads(terms.total, params, torch.ones_like(terms.total))
    p = "f32." if c["dtype"] == "float32" else ""
    return {f"{p}total": terms.total.detach(), f"{p}reconstruction": torch.as_tensor(terms.reconstruction).detach(),
            f"{p}l0": torch.as_tensor(terms.l0).detach(), f"{p}sparsity": torch.as_tensor(terms.sparsity).detach(),
            **{f"{p}grad.{k}": g for k, g in zip(PARAMS, found, strict=True)}, **echo(c)}


@case(params=["1d", "3d", "width"], ids=["1d", "3d", "width"])
def sae_loss_rejects_bad_shape(kind):
    c = SAE[0]
    sae = make_sae(c)
    x = {"1d": c["x"][0], "3d": c["x"][None], "width": c["x"][:, :-1]}[kind]
    return {"result": sae.loss(x.clone(), 0.5)}


# ---------------------------------------------------------------- train_step


@case(params=[(i, flag) for i in range(len(SAE)) for flag in (True, False)],
      ids=[f"{sae_id(i)}-unit{flag}" for i in range(len(SAE)) for flag in (True, False)],
      **F64, outputs={"f32.*": F32})
def train_step_sgd(arg):
    i, unit_norm = arg
    c = SAE[i]
    sae = make_sae(c)
    optimizer = torch.optim.SGD(sae.parameters(), lr=c["lr"])
    terms = train_step(sae, optimizer, c["x"].clone(), c["sparsity_coefficient"], unit_norm)
    p = "f32." if c["dtype"] == "float32" else ""
    return {f"{p}total": terms.total, f"{p}reconstruction": terms.reconstruction, f"{p}l0": terms.l0,
            f"{p}sparsity": terms.sparsity, "total_requires_grad": bool(terms.total.requires_grad),
            **{f"{p}new.{k}": getattr(sae, k).detach() for k in PARAMS}, "lr": c["lr"], "unit_norm": unit_norm,
            **echo(c)}


@case(**F64)
def train_step_adam_repeated():
    c = SAE[0]
    sae = make_sae(c)
    optimizer = torch.optim.Adam(sae.parameters(), lr=0.01, betas=(0.0, 0.999))
    history = [train_step(sae, optimizer, c["x"].clone(), lam, True) for lam in (0.0, 0.5, 1.0, 1.0)]
    return {"total": torch.stack([t.total for t in history]), "l0": torch.stack([t.l0 for t in history]),
            **{f"new.{k}": getattr(sae, k).detach() for k in PARAMS}}


# ---------------------------------------------------------------- the training run (train.py, trainer.py)


def run_training(dtype: str, unit_norm: bool, steps: int) -> dict:
    sae_cfg = SAEConfig(d_model=8, d_sae=24, threshold_init=0.1, bandwidth=0.05, dtype=dtype)
    train_cfg = TrainConfig(steps=steps, batch_size=64, lr=5e-3, sparsity_coefficient=0.05,
                            sparsity_warmup_steps=3, unit_norm_decoder=unit_norm, seed=3)
    trainer = build(sae_cfg, train_cfg)
    history = trainer.run(steps)
    return {"total": torch.stack([t.total for t in history]),
            "reconstruction": torch.stack([t.reconstruction for t in history]),
            "l0": torch.stack([t.l0 for t in history]), "sparsity": torch.stack([t.sparsity for t in history]),
            "lam": torch.tensor([trainer.sparsity_coefficient(s) for s in range(steps)], dtype=torch.float64),
            "unit_norm": unit_norm,
            **{f"final.{k}": getattr(trainer.sae, k).detach() for k in PARAMS}}


@case(params=[True, False], ids=["unit_norm", "free_decoder"], rtol=1e-8, atol=1e-10)
def trainer_float64(unit_norm):
    return run_training("float64", unit_norm, steps=8)


@case(params=[True, False], ids=["unit_norm", "free_decoder"], compare="none")
def trainer_float32(unit_norm):
    return run_training("float32", unit_norm, steps=8)


@case(**F64)
def sae_hand_values():
    # identity encoder and decoder, theta = (0.5, 0.5), eps = 0.4, lambda = 0.1
    cfg = SAEConfig(d_model=2, d_sae=2, bandwidth=0.4, dtype="float64")
    sae = JumpReLUSAE(cfg, generator=torch.Generator().manual_seed(1))
    eye = torch.eye(2, dtype=torch.float64)
    sae.load_state_dict({"W_enc": eye, "b_enc": torch.zeros(2, dtype=torch.float64), "W_dec": eye,
                         "b_dec": torch.zeros(2, dtype=torch.float64),
                         "log_threshold": torch.full((2,), 0.5, dtype=torch.float64).log()})
    terms = sae.loss(torch.tensor([[1.0, 0.6], [0.4, 0.2]], dtype=torch.float64), 0.1)
    params = [getattr(sae, k) for k in PARAMS]
    found = grads(terms.total, params, torch.ones_like(terms.total))
    return {"total": terms.total.detach(), "reconstruction": torch.as_tensor(terms.reconstruction).detach(),
            "l0": torch.as_tensor(terms.l0).detach(), "sparsity": torch.as_tensor(terms.sparsity).detach(),
            **{f"grad.{k}": g for k, g in zip(PARAMS, found, strict=True)}}
