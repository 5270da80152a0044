"""Probe for timemixer/2: MultiScaleTrendMixing.forward (top-down trend mixing). Runs in the sandbox; emits
outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox) at the old
differential tolerance (atol 1e-9, rtol 1e-7, any dtype: the old tests cast to the expected dtype); the trusted
checks in check_trend_mixing.py hold the hand-checked values and the structural properties. One case per old
pytest test (tests/test_trend_mixing.py before the port)."""

from pathlib import Path

import torch

from lmrbench_probe import case
from timemixer.layers.mixing import MultiScaleTrendMixing

CASES = torch.load(Path(__file__).parent / "fixtures" / "trend_cases.pt", weights_only=True)
TOL = dict(rtol=1e-7, atol=1e-9, dtype=False)


def build(c) -> MultiScaleTrendMixing:
    seq_len, window, m, _, _ = c["config"]
    module = MultiScaleTrendMixing(seq_len, window, m).double()
    module.load_state_dict(c["state_dict"])
    return module


def random_module(seq_len=16, window=2, m=2, seed=0):
    torch.manual_seed(seed)
    module = MultiScaleTrendMixing(seq_len, window, m).double()
    with torch.no_grad():
        for p in module.parameters():
            p.mul_(2.0)
    return module


def random_inputs(module, batch, d_model, seed=1):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(batch, t, d_model, generator=g, dtype=torch.float64) for t in module.lengths]


def zero_if_unused(g, like):
    """A gradient autograd reports as unused (None) is a zero gradient."""
    return torch.zeros_like(like) if g is None else g


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(CASES)), **TOL)
def outputs_match_reference(idx):
    c = CASES[idx]
    module = build(c)
    with torch.no_grad():
        out = module([x.clone() for x in c["inputs"]])
    return {"is_sequence": isinstance(out, (list, tuple)), "all_tensors": all(isinstance(o, torch.Tensor) for o in out),
            "outputs": list(out)}


@case(params=range(len(CASES)), **TOL)
def gradients_match_reference(idx):
    # a gradient that does not reach an input or a parameter (None) fails: `*_is_none` must be all False like the
    # reference's (the gradient itself is emitted as zeros then, never as None: see NOTES.md, harness bug)
    c = CASES[idx]
    module = build(c)
    leaf = [x.clone().requires_grad_(True) for x in c["inputs"]]
    out = module(leaf)
    objective = sum((o * ct).sum() for o, ct in zip(out, c["cotangents"]))
    params = dict(module.named_parameters())
    wrt = leaf + list(params.values())
    grads = torch.autograd.grad(objective, wrt, allow_unused=True)
    return {"input_grad_is_none": [g is None for g in grads[: len(leaf)]],
            "param_grad_is_none": {name: g is None for name, g in zip(params, grads[len(leaf):])},
            "input_grads": [zero_if_unused(g, x) for g, x in zip(grads[: len(leaf)], leaf)],
            "param_grads": {name: zero_if_unused(g, p) for (name, p), g in zip(params.items(), grads[len(leaf):])}}


# ---------------------------------------------------------------- values checked by hand (check file)


@case(**TOL)
def hand_checked_two_step_mixing():
    # seq_len 4, window 2, M = 2: lengths 4, 2, 1; one sample, one channel.
    module = MultiScaleTrendMixing(4, 2, 2).double()
    up0, up1 = module.up_mixing  # up0: length 2 -> 4, up1: length 1 -> 2
    phi2 = 0.9772498680518208  # Phi(2), standard normal CDF
    with torch.no_grad():
        up1[0].weight.copy_(torch.tensor([[-1.0], [1.0]], dtype=torch.float64))
        up1[0].bias.fill_(1.0)
        up1[2].weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 0.5]], dtype=torch.float64))
        up1[2].bias.copy_(torch.tensor([0.0, 1.0 - phi2], dtype=torch.float64))
        up0[0].weight.copy_(torch.tensor([[0.0, 1.0], [0.0, -1.0], [0.0, 0.0], [0.0, 0.0]], dtype=torch.float64))
        up0[0].bias.zero_()
        up0[2].weight.copy_(torch.eye(4))
        up0[2].bias.copy_(torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=torch.float64))
    t0 = torch.ones(1, 4, 1, dtype=torch.float64)
    t1 = torch.zeros(1, 2, 1, dtype=torch.float64)
    t2 = torch.ones(1, 1, 1, dtype=torch.float64)
    with torch.no_grad():
        out = module([t0, t1, t2])
    return {"outputs": [o.flatten() for o in out]}


# ---------------------------------------------------------------- properties (check file)


@case(**TOL)
def coarsest_scale_passes_through_and_order_kept():
    module = random_module(seq_len=20, window=2, m=3)
    xs = random_inputs(module, batch=2, d_model=3)
    with torch.no_grad():
        out = module(xs)
    return {"inputs": xs, "outputs": list(out)}


@case(**TOL)
def top_down_dependency_structure():
    # hat t_m depends on t_k exactly for k >= m (coarse -> fine information flow).
    module = random_module(seq_len=16, window=2, m=3)
    xs = [x.requires_grad_(True) for x in random_inputs(module, batch=2, d_model=2)]
    out = module(xs)
    result = {}
    for m, o in enumerate(out):
        grads = torch.autograd.grad(o.sum(), xs, allow_unused=True, retain_graph=True)
        for k, g in enumerate(grads):
            result[f"d_out{m}_d_in{k}"] = zero_if_unused(g, xs[k])
    return result


@case(**TOL)
def mixing_is_per_channel_and_per_sample():
    module = random_module(seq_len=16, window=2, m=2, seed=3)
    xs = random_inputs(module, batch=3, d_model=4, seed=4)
    with torch.no_grad():
        base = module([x.clone() for x in xs])
        perturbed_in = [x.clone() for x in xs]
        perturbed_in[-1][1, :, 2] += 1.0  # sample 1, channel 2, coarsest scale
        perturbed = module(perturbed_in)
        single = module([x[2:3].clone() for x in xs])  # a batch of one
    return {"base": list(base), "perturbed": list(perturbed), "single": list(single)}


@case(**TOL)
def zero_mixing_layers_give_identity():
    module = random_module(seq_len=12, window=2, m=2, seed=5)
    with torch.no_grad():
        for layer in module.up_mixing:
            layer[2].weight.zero_()
            layer[2].bias.zero_()
        xs = random_inputs(module, batch=2, d_model=3, seed=6)
        out = module(xs)
    return {"inputs": xs, "outputs": list(out)}


@case(**TOL)
def inputs_not_modified():
    module = random_module(seq_len=16, window=2, m=2, seed=7)
    xs = random_inputs(module, batch=2, d_model=3, seed=8)
    copies = [x.clone() for x in xs]
    with torch.no_grad():
        module(xs)
    return {"before": copies, "after": xs}
