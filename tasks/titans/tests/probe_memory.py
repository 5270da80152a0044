"""Probe for titans/1: the neural memory's surprise, sequential and chunked updates and retrieval
(titans/memory.py). Runs in the sandbox; emits outputs only, never compares."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from titans.config import TitansConfig
from titans.layers import NeuralMemory
from titans.memory import chunked_update, retrieve, sequential_update, token_gradients

CASES = torch.load(Path(__file__).parent / "fixtures" / "memory_cases.pt", weights_only=True)
F64 = torch.float64
# tolerances measured in NOTES.md
TOL = dict(rtol=1e-9, atol=1e-11)
F32 = {"f32.*": dict(rtol=1e-4, atol=1e-5)}


def f64(x):
    return [t.detach().to(F64) for t in x] if isinstance(x, list) else x.detach().to(F64)


def tag(c: dict) -> str:
    return "f32." if c["k"].dtype == torch.float32 else ""


def inputs(c: dict) -> dict:
    return {"in": {key: f64(c[key]) for key in ("weights", "momentum", "k", "v", "q", "alpha", "eta", "theta")},
            "chunk_size": c["chunk_size"], "depth": len(c["weights"])}


def args(c: dict) -> tuple:
    return ([w.clone() for w in c["weights"]], [m.clone() for m in c["momentum"]], c["k"].clone(),
            c["v"].clone(), c["alpha"].clone(), c["eta"].clone(), c["theta"].clone())


@case(params=range(len(CASES)), **TOL, outputs=F32)
def token_gradients_match(i):
    c = CASES[i]
    return {f"{tag(c)}grads": token_gradients([w.clone() for w in c["weights"]], c["k"].clone(), c["v"].clone()),
            **inputs(c)}


@case(rtol=1e-12, atol=1e-14)
def hand_values():
    # a scalar linear memory M(x) = w x: two tokens
    w0 = [torch.tensor([[[0.5]]], dtype=F64)]
    s0 = [torch.tensor([[[0.1]]], dtype=F64)]
    k = torch.tensor([[[1.0], [2.0]]], dtype=F64)
    v = torch.tensor([[[1.0], [0.0]]], dtype=F64)
    alpha = torch.tensor([[0.1, 0.2]], dtype=F64)
    eta = torch.tensor([[0.5, 0.25]], dtype=F64)
    theta = torch.tensor([[0.2, 0.1]], dtype=F64)
    seq = sequential_update(w0, s0, k, v, alpha, eta, theta)
    one_chunk = chunked_update(w0, s0, k, v, alpha, eta, theta, 2)
    return {"grads": token_gradients(w0, k, v), "seq": seq, "chunk2": one_chunk,
            "read": retrieve(seq[0], torch.tensor([[[2.0], [-1.0]]], dtype=F64))}


@case(params=range(len(CASES)), **TOL, outputs=F32)
def sequential_matches(i):
    c = CASES[i]
    states, momenta = sequential_update(*args(c))
    return {f"{tag(c)}states": states, f"{tag(c)}momenta": momenta, **inputs(c)}


@case(params=range(len(CASES)), **TOL, outputs=F32)
def chunked_matches(i):
    c = CASES[i]
    states, momenta = chunked_update(*args(c), c["chunk_size"])
    return {f"{tag(c)}states": states, f"{tag(c)}momenta": momenta, **inputs(c)}


@case(params=range(len(CASES)), **TOL, outputs=F32)
def retrieve_matches(i):
    c = CASES[i]
    states, _ = sequential_update(*args(c))
    return {f"{tag(c)}read": retrieve(states, c["q"].clone()), **inputs(c)}


@case(params=[1, 2, 4])
def chunk_size_one_is_sequential(idx):
    c = CASES[idx]
    return {"seq": sequential_update(*args(c)), "chunk1": chunked_update(*args(c), 1)}


@case(params=[0, -2])
def bad_chunk_size_raises(size):
    c = CASES[0]
    return {"result": chunked_update(*args(c), size)}


@case(params=["chunked", "sequential"], rtol=1e-8, atol=1e-10)
def outer_loop_gradients(mode):
    # the outer loop trains through the inner updates: gradients with respect to every input
    c = CASES[1]
    leaves = [t.clone().requires_grad_() for t in (*c["weights"], *c["momentum"], c["k"], c["v"], c["alpha"],
                                                   c["eta"], c["theta"])]
    n = len(c["weights"])
    w, s, (k, v, a, e, th) = leaves[:n], leaves[n:2 * n], leaves[2 * n:]
    if mode == "chunked":
        states, momenta = chunked_update(w, s, k, v, a, e, th, c["chunk_size"])
    else:
        states, momenta = sequential_update(w, s, k, v, a, e, th)
    loss = retrieve(states, c["q"]).pow(2).sum() + sum(m[:, -1].sum() for m in momenta)
    return {"loss": loss.detach(), "grads": list(torch.autograd.grad(loss, leaves, allow_unused=True, materialize_grads=True))}


@case(params=[1, 3], rtol=1e-8, atol=1e-10)
def memory_layer(chunk):
    torch.manual_seed(0)
    cfg = TitansConfig(dim=6, memory_hidden=8, chunk_size=chunk)
    layer = NeuralMemory(cfg).to(F64)
    x = torch.randn(2, 7, 6, generator=torch.Generator().manual_seed(5), dtype=F64)
    return {"chunked": layer(x), "sequential": layer(x, sequential=True), "chunk": chunk}
