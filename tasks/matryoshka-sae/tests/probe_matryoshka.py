"""Probe for matryoshka-sae/1: batch_topk, MatryoshkaSAE and train_step in matryoshka/sae.py. Runs in the sandbox;
emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_matryoshka.py recompute them from the equations of paper.md. Cheap cases first, the training runs last."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from matryoshka.config import SAEConfig, TrainConfig
from matryoshka.data import ActivationBatch
from matryoshka.sae import MatryoshkaSAE, batch_topk, train_step
from train import build

FIXTURES = Path(__file__).parent / "fixtures"
TOPK = torch.load(FIXTURES / "topk_cases.pt", weights_only=True)
SAE = torch.load(FIXTURES / "sae_cases.pt", weights_only=True)
PARAMS = ("W_enc", "b_enc", "W_dec", "b_dec")
F64 = dict(rtol=1e-10, atol=1e-12)
F32 = dict(rtol=1e-4, atol=1e-5)


def f64(x: torch.Tensor) -> torch.Tensor:
    return x.detach().to(torch.float64)


def grads(output: torch.Tensor, inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    """d output / d input for each input; an input that gets no gradient gets zeros."""
    found = torch.autograd.grad(output, inputs, allow_unused=True)
    return [torch.zeros_like(t) if g is None else g for t, g in zip(inputs, found, strict=True)]


# ---------------------------------------------------------------- batch_topk


def topk_id(i: int) -> str:
    c = TOPK[i]
    return f"{i}-{tuple(c['z'].shape)}-k{c['k']}-{str(c['z'].dtype)[6:]}"


@case(params=range(len(TOPK)), ids=[topk_id(i) for i in range(len(TOPK))], **F64, outputs={"*f32.*": F32})
def batch_topk_matches_reference(i):
    c = TOPK[i]
    z = c["z"].clone().requires_grad_(True)
    acts = batch_topk(z, c["k"])
    (grad,) = grads((acts * c["upstream"]).sum(), [z])
    p = "f32." if c["z"].dtype == torch.float32 else ""
    return {f"{p}acts": acts, f"{p}grad": grad, "z": f64(c["z"]), "k": c["k"], "upstream": f64(c["upstream"])}


@case(params=["1d", "3d"], ids=["1d", "3d"])
def batch_topk_rejects_bad_shape(kind):
    z = TOPK[0]["z"]
    return {"result": batch_topk(z[0] if kind == "1d" else z[None], 2)}


@case(**F64)
def batch_topk_hand_values():
    z = torch.tensor([[0.9, -0.2, 0.4], [0.1, 0.7, -1.0], [0.3, 0.05, 0.6]], dtype=torch.float64)
    return {"k1": batch_topk(z, 1), "k2": batch_topk(z, 2), "k3": batch_topk(z, 3)}


# ---------------------------------------------------------------- the SAE


def make_sae(c: dict, **overrides) -> MatryoshkaSAE:
    fields = dict(d_model=c["d_model"], group_sizes=tuple(c["group_sizes"]), k=c["k"], aux_k=c["aux_k"],
                  aux_coefficient=c["aux_coefficient"], dead_after_batches=c["dead_after"], dtype=c["dtype"])
    fields.update(overrides)
    sae = MatryoshkaSAE(SAEConfig(**fields), generator=torch.Generator().manual_seed(1))
    dtype = getattr(torch, c["dtype"])
    state = {k: v.clone() for k, v in c["params"].items()}
    state["threshold"] = torch.tensor(c["threshold"], dtype=dtype)
    state["threshold_batches"] = torch.tensor(c["threshold_batches"], dtype=torch.int64)
    state["batches_since_fired"] = c["batches_since_fired"].clone()
    sae.load_state_dict(state)
    return sae


def sae_id(i: int) -> str:
    c = SAE[i]
    groups = "-".join(str(s) for s in c["group_sizes"])
    return f"{i}-N{c['x'].shape[0]}-d{c['d_model']}-g{groups}-k{c['k']}-{c['dtype']}"


def prefix(c: dict) -> str:
    return "f32." if c["dtype"] == "float32" else ""


def echo(c: dict) -> dict:
    """The case's inputs, for the checks."""
    return {"x": f64(c["x"]), "k": c["k"], "aux_k": c["aux_k"], "alpha": c["aux_coefficient"],
            "dead_after": c["dead_after"], "group_sizes": torch.tensor(c["group_sizes"]),
            "counters": c["batches_since_fired"].clone(), "threshold": c["threshold"],
            "threshold_batches": c["threshold_batches"], **{f"param.{k}": f64(v) for k, v in c["params"].items()}}


def buffers(sae: MatryoshkaSAE, p: str) -> dict:
    return {f"{p}buf.threshold": sae.threshold.detach().clone(),
            "buf.threshold_batches": sae.threshold_batches.clone(),
            "buf.batches_since_fired": sae.batches_since_fired.clone()}


IDS = [sae_id(i) for i in range(len(SAE))]


@case(params=range(len(SAE)), ids=IDS, **F64, outputs={"*f32.*": F32})
def sae_forward(i):
    c = SAE[i]
    sae = make_sae(c)
    out = sae(c["x"].clone())
    p = prefix(c)
    widths = [1, c["group_sizes"][0], sum(c["group_sizes"]) - 1, None]
    return {f"{p}pre_acts": out.pre_acts, f"{p}features": out.features,
            f"{p}reconstructions": [r.detach() for r in out.reconstructions],
            f"{p}encode": list(sae.encode(c["x"].clone())),
            f"{p}decode": [sae.decode(out.features.detach(), w).detach() for w in widths],
            **buffers(sae, p), **echo(c)}


@case(params=range(len(SAE)), ids=IDS, **F64, outputs={"*f32.*": F32})
def sae_eval_mode(i):
    c = SAE[i]
    sae = make_sae(c)
    sae.eval()
    x = c["x"].clone()
    out = sae(x)
    batched = sae(x[None, None].expand(2, 1, *x.shape))
    p = prefix(c)
    return {f"{p}pre_acts": out.pre_acts, f"{p}features": out.features,
            f"{p}reconstructions": [r.detach() for r in out.reconstructions],
            f"{p}batched.features": batched.features, f"{p}batched.last": batched.reconstructions[-1].detach(),
            **buffers(sae, p), **echo(c)}


@case
def training_encode_rejects_3d():
    c = SAE[0]
    sae = make_sae(c)
    return {"result": sae.encode(c["x"][None].clone())}


@case(params=["zero", "too_wide"], ids=["zero", "too_wide"])
def decode_rejects_bad_width(kind):
    c = SAE[0]
    sae = make_sae(c)
    width = 0 if kind == "zero" else sum(c["group_sizes"]) + 1
    return {"result": sae.decode(torch.zeros(2, sum(c["group_sizes"]), dtype=torch.float64), width)}


@case(params=range(len(SAE)), ids=IDS, **F64, outputs={"*f32.*": F32})
def sae_loss(i):
    c = SAE[i]
    sae = make_sae(c)
    terms = sae.loss(c["x"].clone())
    params = [getattr(sae, k) for k in PARAMS]
    found = grads(terms.total, params)
    p = prefix(c)
    return {f"{p}total": terms.total.detach(), f"{p}reconstruction": terms.reconstruction.detach(),
            f"{p}prefix_errors": terms.prefix_errors.detach(), f"{p}aux": torch.as_tensor(terms.aux).detach(),
            f"{p}features": terms.features, "features_requires_grad": bool(terms.features.requires_grad),
            **{f"{p}grad.{k}": g for k, g in zip(PARAMS, found, strict=True)}, **buffers(sae, p), **echo(c)}


@case(params=["1d", "3d", "width"], ids=["1d", "3d", "width"])
def sae_loss_rejects_bad_shape(kind):
    c = SAE[0]
    sae = make_sae(c)
    x = {"1d": c["x"][0], "3d": c["x"][None], "width": c["x"][:, :-1]}[kind]
    return {"result": sae.loss(x.clone())}


@case(**F64)
def sae_hand_values():
    # d_model 2, three latents in groups (1, 2), decoder rows (1, 0), (0, 1), (0.6, 0.8), W_enc = W_dec^T, zero
    # biases, k = 1, aux_k = 1, alpha = 1/32; latent 2 (0-based) is dead
    cfg = SAEConfig(d_model=2, group_sizes=(1, 2), k=1, aux_k=1, aux_coefficient=1.0 / 32.0, dead_after_batches=1,
                    dtype="float64")
    sae = MatryoshkaSAE(cfg, generator=torch.Generator().manual_seed(1))
    w_dec = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=torch.float64)
    with torch.no_grad():
        sae.W_dec.copy_(w_dec)
        sae.W_enc.copy_(w_dec.T)
        sae.b_enc.zero_()
        sae.b_dec.zero_()
    x = torch.tensor([[1.0, 0.25], [0.2, 0.3]], dtype=torch.float64)
    alive = sae.loss(x)
    sae.batches_since_fired.copy_(torch.tensor([0, 0, 1]))
    dead = sae.loss(x)
    sae.update_statistics(dead.features)
    sae.eval()
    return {"alive.total": alive.total.detach(), "alive.prefix_errors": alive.prefix_errors.detach(),
            "alive.features": alive.features, "dead.total": dead.total.detach(), "dead.aux": dead.aux.detach(),
            "threshold": sae.threshold.clone(), "counters": sae.batches_since_fired.clone(),
            "eval.features": sae.encode(torch.tensor([[0.5, 1.0]], dtype=torch.float64))[1]}


# ---------------------------------------------------------------- update_statistics


@case(params=range(len(SAE)), ids=IDS, **F64, outputs={"*f32.*": F32})
def update_statistics(i):
    c = SAE[i]
    sae = make_sae(c)
    features = sae.encode(c["x"].clone())[1].detach()
    sae.update_statistics(features)
    first = buffers(sae, prefix(c))
    half = features[: max(1, features.shape[0] // 2)]
    sae.update_statistics(half)
    second = buffers(sae, prefix(c))
    return {"first": first, "second": second, f"{prefix(c)}features": f64(features), **echo(c)}


# ---------------------------------------------------------------- train_step


@case(params=range(len(SAE)), ids=IDS, **F64, outputs={"*f32.*": F32})
def train_step_sgd(i):
    c = SAE[i]
    sae = make_sae(c)
    optimizer = torch.optim.SGD(sae.parameters(), lr=c["lr"])
    terms = train_step(sae, optimizer, ActivationBatch(acts=c["acts"].clone(), mask=c["mask"].clone()))
    p = prefix(c)
    return {f"{p}total": terms.total, f"{p}reconstruction": terms.reconstruction,
            f"{p}prefix_errors": terms.prefix_errors, f"{p}aux": torch.as_tensor(terms.aux),
            "total_requires_grad": bool(terms.total.requires_grad),
            **{f"{p}new.{k}": getattr(sae, k).detach() for k in PARAMS}, **buffers(sae, p), "lr": c["lr"],
            **echo(c)}


@case(**F64)
def train_step_adam_repeated():
    c = SAE[1]
    sae = make_sae(c)
    optimizer = torch.optim.Adam(sae.parameters(), lr=0.01)
    batch = ActivationBatch(acts=c["acts"].clone(), mask=c["mask"].clone())
    history = [train_step(sae, optimizer, batch) for _ in range(3)]
    return {"total": torch.stack([t.total for t in history]), "aux": torch.stack([t.aux for t in history]),
            **{f"new.{k}": getattr(sae, k).detach() for k in PARAMS}, **buffers(sae, "")}


# ---------------------------------------------------------------- the training run (train.py, trainer.py)


def run_training(dtype: str, steps: int) -> dict:
    sae_cfg = SAEConfig(d_model=8, group_sizes=(2, 4, 10), k=2, aux_k=3, dead_after_batches=2, dtype=dtype)
    train_cfg = TrainConfig(steps=steps, batch_size=4, max_len=5, lr=1e-2, seed=3)
    trainer = build(sae_cfg, train_cfg)
    history = trainer.run(steps)
    return {"total": torch.stack([t.total for t in history]),
            "reconstruction": torch.stack([t.reconstruction for t in history]),
            "prefix_errors": torch.stack([t.prefix_errors for t in history]),
            "aux": torch.stack([torch.as_tensor(t.aux) for t in history]),
            **{f"final.{k}": getattr(trainer.sae, k).detach() for k in PARAMS}, **buffers(trainer.sae, "")}


@case(rtol=1e-8, atol=1e-10)
def trainer_float64():
    return run_training("float64", steps=8)


@case(compare="none")
def trainer_float32():
    return run_training("float32", steps=8)
