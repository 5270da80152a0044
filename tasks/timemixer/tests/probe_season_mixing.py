"""Probe for timemixer/1: MultiScaleSeasonMixing.forward (bottom-up season mixing). Runs in the sandbox; emits
outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox) at the old
differential tolerance (atol 1e-9, rtol 1e-7, any dtype: the old tests cast to the expected dtype); the trusted
checks in check_season_mixing.py hold the hand-checked values and the structural properties. One case per old
pytest test (tests/test_season_mixing.py before the port)."""

from pathlib import Path

import torch

from lmrbench_probe import case
from timemixer.layers.mixing import MultiScaleSeasonMixing

CASES = torch.load(Path(__file__).parent / "fixtures" / "season_cases.pt", weights_only=True)
TOL = dict(rtol=1e-7, atol=1e-9, dtype=False)


def build(c) -> MultiScaleSeasonMixing:
    seq_len, window, m, _, _ = c["config"]
    module = MultiScaleSeasonMixing(seq_len, window, m).double()
    module.load_state_dict(c["state_dict"])
    return module


def random_module(seq_len=16, window=2, m=2, seed=0):
    torch.manual_seed(seed)
    module = MultiScaleSeasonMixing(seq_len, window, m).double()
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
    module = MultiScaleSeasonMixing(4, 2, 2).double()
    down0, down1 = module.down_mixing
    with torch.no_grad():
        # Down_0: W1 averages neighbouring pairs, no bias; second linear = identity.
        down0[0].weight.copy_(torch.tensor([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]], dtype=torch.float64))
        down0[0].bias.zero_()
        down0[2].weight.copy_(torch.eye(2))
        down0[2].bias.zero_()
        # Down_1: W1 picks the second entry, bias Phi(-1); W2 = 2, b2 = 0.5.
        down1[0].weight.copy_(torch.tensor([[0.0, 1.0]], dtype=torch.float64))
        down1[0].bias.fill_(0.15865525393145707)  # Phi(-1)
        down1[2].weight.fill_(2.0)
        down1[2].bias.fill_(0.5)
    s0 = torch.tensor([1.0, 3.0, -2.0, 0.0], dtype=torch.float64).view(1, 4, 1)
    s1 = torch.tensor([0.0, 1.0], dtype=torch.float64).view(1, 2, 1)
    s2 = torch.tensor([0.25], dtype=torch.float64).view(1, 1, 1)
    with torch.no_grad():
        out = module([s0, s1, s2])
    return {"outputs": [o.flatten() for o in out]}


# ---------------------------------------------------------------- properties (check file)


@case(**TOL)
def finest_scale_passes_through_and_shapes_kept():
    module = random_module(seq_len=20, window=2, m=3)
    xs = random_inputs(module, batch=2, d_model=3)
    with torch.no_grad():
        out = module(xs)
    return {"inputs": xs, "outputs": list(out)}


@case(**TOL)
def bottom_up_dependency_structure():
    # hat s_m depends on s_k exactly for k <= m (fine -> coarse information flow).
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
        perturbed_in[0][1, :, 2] += 1.0  # sample 1, channel 2, finest scale
        perturbed = module(perturbed_in)
        single = module([x[2:3].clone() for x in xs])  # a batch of one
    return {"base": list(base), "perturbed": list(perturbed), "single": list(single)}


@case(**TOL)
def zero_mixing_layers_give_identity():
    module = random_module(seq_len=12, window=2, m=2, seed=5)
    with torch.no_grad():
        for layer in module.down_mixing:
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
