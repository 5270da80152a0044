"""Probe for adalora/2: RankAllocator.update_ipt and RankAllocator.mask_to_budget. Runs in the sandbox; emits
outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_rank_allocator.py add the hand-computed values and the properties of the allocator."""

from __future__ import annotations

from pathlib import Path

import torch
import torch.nn as nn

from adalora.allocator import RankAllocator
from adalora.layers import SVDLinear
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
DT = torch.float64
RTOL, ATOL = 1e-12, 1e-12
TRACES = torch.load(FIXTURES / "allocator_traces.pt", weights_only=True)
MASKS = torch.load(FIXTURES / "mask_cases.pt", weights_only=True)
STATES = ("ipt", "exp_avg_ipt", "exp_avg_unc")
# parameters and importance statistics that mask_to_budget must leave alone, and the masked singular values,
# are compared exactly (the old tests used torch.equal); the threshold with pytest.approx(rel=1e-12, abs=0)
EXACT = {"threshold": dict(rtol=1e-12, atol=0.0), "params.*": {"compare": "exact"},
         "exp_avg_*": {"compare": "exact"}, "lora_E*": {"compare": "exact"}}


class ToyAdapted(nn.Module):
    """Same structure as in make_fixtures.py: 3 adapted layers (r = 3, 2, 4), one without adapter, a head."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = SVDLinear(5, 4, r=3, lora_alpha=6.0, dtype=DT)
        self.blocks = nn.ModuleList([
            SVDLinear(4, 6, r=2, lora_alpha=4.0, dtype=DT),
            SVDLinear(6, 4, r=4, lora_alpha=8.0, fan_in_fan_out=True, dtype=DT),
            SVDLinear(4, 4, r=0, dtype=DT),
        ])
        self.head = nn.Linear(4, 2, dtype=DT)


LORA_NAMES = [n for n, _ in ToyAdapted().named_parameters() if n.rsplit(".", 1)[-1] in ("lora_A", "lora_E", "lora_B")]


def make_allocator(model: nn.Module, beta1: float = 0.85, beta2: float = 0.85) -> RankAllocator:
    return RankAllocator(model, target_rank=1, init_warmup=1, final_warmup=1, mask_interval=1, total_step=10,
                         beta1=beta1, beta2=beta2)


def tensor(value, what: str) -> torch.Tensor:
    """A copy of a tensor the probe emits; anything else is reported as a TypeError, not emitted."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{what} is {type(value).__name__}, not a tensor")
    return value.detach().clone()


def snapshot(alloc: RankAllocator) -> dict:
    """The allocator's three state dictionaries, copied (later steps may update them in place)."""
    return {key: {name: tensor(v, f"{key}[{name}]") for name, v in getattr(alloc, key).items()} for key in STATES}


def replay(trace: dict, upto: int | None = None):
    """Feed a recorded sequence of parameters/gradients to update_ipt; yield the allocator after each step."""
    model = ToyAdapted()
    alloc = make_allocator(model, trace["beta1"], trace["beta2"])
    params = dict(model.named_parameters())
    for step in trace["steps"][:upto]:
        with torch.no_grad():
            for name, p in params.items():
                p.copy_(step["params"][name])
                p.grad = step["grads"][name].clone() if name in step["grads"] else None
        alloc.update_ipt(model)
        yield model, alloc, step


def threshold_out(threshold) -> dict:
    """The threshold (a float, or None when nothing is pruned) and its type's name."""
    keep = threshold is None or isinstance(threshold, float)
    return {"threshold_type": type(threshold).__name__, "threshold": threshold if keep else None}


def singular_values(model: nn.Module) -> dict:
    return {n: tensor(p, n) for n, p in model.named_parameters() if n.endswith("lora_E")}


# ---------------------------------------------------------------- update_ipt


@case(params=range(len(TRACES)), rtol=RTOL, atol=ATOL)
def importance_statistics_match_reference_over_several_steps(t: int):
    return {f"step{i}": snapshot(alloc) for i, (_, alloc, _) in enumerate(replay(TRACES[t]))}


@case(rtol=RTOL, atol=ATOL)
def update_ipt_hand_computed():
    model = nn.ModuleDict({"lin": SVDLinear(1, 1, r=1, dtype=DT)})
    alloc = make_allocator(model)
    a = model["lin"].lora_A
    out = {}
    for step, (w, g) in enumerate(((2.0, 0.5), (-1.0, 3.0)), 1):
        with torch.no_grad():
            a.fill_(w)
        a.grad = torch.full_like(a, g)
        model["lin"].lora_E.grad = torch.zeros_like(model["lin"].lora_E)
        model["lin"].lora_B.grad = torch.zeros_like(model["lin"].lora_B)
        alloc.update_ipt(model)
        out[f"step{step}"] = {key: tensor(getattr(alloc, key)["lin.lora_A"], key) for key in STATES}
    return out


@case(rtol=RTOL, atol=ATOL)
def parameters_without_gradient_are_skipped():
    # In trace 2, at step index 2, embed.lora_A and blocks.1.lora_E have no gradient.
    snapshots = [snapshot(a) for _, a, _ in replay(TRACES[2])]
    return {"step1": snapshots[1], "step2": snapshots[2]}


@case(rtol=RTOL, atol=ATOL)
def beta1_zero_limit():
    # beta1 = 0: the smoothed sensitivity is the current one, so |I - I_bar| = 0 and U_bar only decays.
    trace = {**TRACES[0], "beta1": 0.0, "beta2": 0.6}
    return {f"step{i}": snapshot(alloc) for i, (_, alloc, _) in enumerate(replay(trace))}


@case(rtol=RTOL, atol=ATOL)
def sensitivity_is_sign_invariant_and_state_is_detached():
    trace = TRACES[1]
    flipped = {**trace, "steps": [
        {**s, "grads": {n: -g for n, g in s["grads"].items()},
         "params": {n: (-p if i % 2 else p) for i, (n, p) in enumerate(s["params"].items())}}
        for s in trace["steps"]]}
    out = {}
    for i, ((m1, a1, _), (_, a2, _)) in enumerate(zip(replay(trace), replay(flipped), strict=True)):
        params = dict(m1.named_parameters())
        out[f"step{i}"] = {
            "unc": {n: tensor(a1.exp_avg_unc[n], n) for n in LORA_NAMES},
            "unc_flipped": {n: tensor(a2.exp_avg_unc[n], n) for n in LORA_NAMES},
            "ipt_requires_grad": {n: a1.exp_avg_ipt[n].requires_grad for n in LORA_NAMES},
            "ipt_shape": {n: list(a1.exp_avg_ipt[n].shape) for n in LORA_NAMES},
            "param_shape": {n: list(params[n].shape) for n in LORA_NAMES},
        }
    return out


@case(rtol=RTOL, atol=ATOL, outputs={"params.*": {"compare": "exact"}, "grads.*": {"compare": "exact"}})
def update_ipt_leaves_parameters_and_gradients_alone():
    model, _, _ = next(replay(TRACES[0], upto=1))
    # after the call: the check compares them exactly with the reference run's (which leaves them alone)
    return {"params": {n: tensor(p, n) for n, p in model.named_parameters()},
            "grads": {n: tensor(p.grad, f"{n}.grad") for n, p in model.named_parameters()}}


# ---------------------------------------------------------------- mask_to_budget


def masked_model(c: dict) -> tuple[ToyAdapted, RankAllocator]:
    model = ToyAdapted()
    model.load_state_dict(c["state"], strict=False)
    alloc = make_allocator(model)
    alloc.exp_avg_ipt = {k: v.clone() for k, v in c["exp_avg_ipt"].items()}
    alloc.exp_avg_unc = {k: v.clone() for k, v in c["exp_avg_unc"].items()}
    return model, alloc


@case(params=range(len(MASKS)), rtol=RTOL, atol=ATOL, outputs=EXACT)
def mask_to_budget_matches_reference(idx: int):
    c = MASKS[idx]
    model, alloc = masked_model(c)
    out = threshold_out(alloc.mask_to_budget(model, c["budget"]))
    # Only the singular values are touched (the check compares every tensor exactly with the reference run's).
    out["params"] = {n: tensor(p, n) for n, p in model.named_parameters()}
    out["exp_avg_ipt"] = {n: tensor(alloc.exp_avg_ipt[n], n) for n in LORA_NAMES}
    out["exp_avg_unc"] = {n: tensor(alloc.exp_avg_unc[n], n) for n in LORA_NAMES}
    return out


@case(params=range(len(MASKS)), rtol=RTOL, atol=ATOL, outputs=EXACT)
def global_top_budget_triplets_survive(idx: int):
    c = MASKS[idx]
    model, alloc = masked_model(c)
    alloc.mask_to_budget(model, c["budget"])
    # the inputs of the scores (from paper.md: S_i = s(lambda_i) + mean_j s(Q_ij) + mean_j s(P_ji), s = I_bar * U_bar)
    return {"budget": c["budget"], "in_ipt": c["exp_avg_ipt"], "in_unc": c["exp_avg_unc"],
            "lora_E": singular_values(model)}


@case(rtol=RTOL, atol=ATOL, outputs={"threshold*": dict(atol=1e-12), "lora_E*": {"compare": "exact"}})
def mask_to_budget_hand_computed():
    model = nn.ModuleDict({"lin": SVDLinear(2, 2, r=3, dtype=DT)})
    with torch.no_grad():
        model["lin"].lora_E.copy_(torch.tensor([[1.0], [2.0], [3.0]], dtype=DT))
    alloc = make_allocator(model)
    alloc.exp_avg_ipt = {
        "lin.lora_E": torch.tensor([[0.1], [0.5], [0.0]], dtype=DT),
        "lin.lora_A": torch.tensor([[0.2, 0.4], [0.1, 0.1], [0.3, 0.1]], dtype=DT),
        "lin.lora_B": torch.tensor([[0.0, 0.2, 0.1], [0.6, 0.2, 0.1]], dtype=DT),
    }
    alloc.exp_avg_unc = {k: torch.ones_like(v) for k, v in alloc.exp_avg_ipt.items()}
    first = threshold_out(alloc.mask_to_budget(model, 1))
    lora_e_first = tensor(model["lin"].lora_E, "lora_E")
    with torch.no_grad():
        model["lin"].lora_E.copy_(torch.tensor([[1.0], [2.0], [3.0]], dtype=DT))
    second = threshold_out(alloc.mask_to_budget(model, 2))
    return {"threshold_budget1": first, "lora_E_budget1": lora_e_first, "threshold_budget2": second,
            "lora_E_budget2": tensor(model["lin"].lora_E, "lora_E")}


@case(rtol=RTOL, atol=ATOL, outputs={"t*.threshold": dict(rtol=1e-12, atol=1e-12), "params*": {"compare": "exact"}})
def importance_is_the_product_of_sensitivity_and_uncertainty():
    # Swapping I_bar and U_bar leaves s = I_bar * U_bar, hence the pruning, unchanged; scaling U_bar by 10
    # scales every score by 10 and leaves the pruning unchanged but the threshold times 10.
    c = MASKS[4]
    model1, alloc1 = masked_model(c)
    t1 = threshold_out(alloc1.mask_to_budget(model1, c["budget"]))
    model2, alloc2 = masked_model(c)
    alloc2.exp_avg_ipt, alloc2.exp_avg_unc = alloc2.exp_avg_unc, alloc2.exp_avg_ipt
    t2 = threshold_out(alloc2.mask_to_budget(model2, c["budget"]))
    model3, alloc3 = masked_model(c)
    alloc3.exp_avg_unc = {k: 10 * v for k, v in alloc3.exp_avg_unc.items()}
    t3 = threshold_out(alloc3.mask_to_budget(model3, c["budget"]))
    params = {f"params{i}": {n: tensor(p, n) for n, p in m.named_parameters()}
              for i, m in enumerate((model1, model2, model3), 1)}
    return {"t1": t1, "t2": t2, "t3": t3, **params}


@case(rtol=RTOL, atol=ATOL, outputs={"lora_E*": {"compare": "exact"}})
def pruning_is_monotone_in_the_budget():
    # A smaller budget prunes a superset; pruning again with the same budget changes nothing.
    model, alloc = masked_model(MASKS[2])
    alloc.mask_to_budget(model, 6)
    first = singular_values(model)
    alloc.mask_to_budget(model, 6)
    again = singular_values(model)
    alloc.mask_to_budget(model, 2)
    return {"lora_E_budget6": first, "lora_E_budget6_again": again, "lora_E_budget2": singular_values(model)}
