"""Hidden tests for adalora/2: RankAllocator.update_ipt and RankAllocator.mask_to_budget."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn as nn

from adalora.allocator import RankAllocator
from adalora.layers import SVDLinear

FIXTURES = Path(__file__).parent / "fixtures"
DT = torch.float64
RTOL, ATOL = 1e-12, 1e-12
TRACES = torch.load(FIXTURES / "allocator_traces.pt", weights_only=True)
MASKS = torch.load(FIXTURES / "mask_cases.pt", weights_only=True)


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
LAYERS = {"embed": 3, "blocks.0": 2, "blocks.1": 4}


def make_allocator(model: nn.Module, beta1: float = 0.85, beta2: float = 0.85) -> RankAllocator:
    return RankAllocator(model, target_rank=1, init_warmup=1, final_warmup=1, mask_interval=1, total_step=10,
                         beta1=beta1, beta2=beta2)


def close(a: torch.Tensor, b: torch.Tensor) -> None:
    torch.testing.assert_close(a, b, rtol=RTOL, atol=ATOL)


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


# ---------------------------------------------------------------- update_ipt
@pytest.mark.parametrize("t", range(len(TRACES)))
def test_importance_statistics_match_reference_over_several_steps(t: int) -> None:
    for _, alloc, step in replay(TRACES[t]):
        for key in ("ipt", "exp_avg_ipt", "exp_avg_unc"):
            state = getattr(alloc, key)
            assert sorted(state) == sorted(LORA_NAMES), key
            for name in LORA_NAMES:
                close(state[name], step[key][name])


def test_update_ipt_hand_computed() -> None:
    # One entry of lora_A, beta1 = beta2 = 0.85, averages start at zero.
    # Step 1: w = 2, g = 0.5 -> I = 1;  I_bar = 0.15 * 1 = 0.15;  U_bar = 0.15 * |1 - 0.15| = 0.1275.
    # Step 2: w = -1, g = 3 -> I = 3;  I_bar = 0.85*0.15 + 0.15*3 = 0.5775;
    #         U_bar = 0.85*0.1275 + 0.15*|3 - 0.5775| = 0.108375 + 0.363375 = 0.47175.
    model = nn.ModuleDict({"lin": SVDLinear(1, 1, r=1, dtype=DT)})
    alloc = make_allocator(model)
    a = model["lin"].lora_A
    for w, g in ((2.0, 0.5), (-1.0, 3.0)):
        with torch.no_grad():
            a.fill_(w)
        a.grad = torch.full_like(a, g)
        model["lin"].lora_E.grad = torch.zeros_like(model["lin"].lora_E)
        model["lin"].lora_B.grad = torch.zeros_like(model["lin"].lora_B)
        alloc.update_ipt(model)
        if w == 2.0:
            close(alloc.exp_avg_ipt["lin.lora_A"], torch.tensor([[0.15]], dtype=DT))
            close(alloc.exp_avg_unc["lin.lora_A"], torch.tensor([[0.1275]], dtype=DT))
    close(alloc.ipt["lin.lora_A"], torch.tensor([[3.0]], dtype=DT))
    close(alloc.exp_avg_ipt["lin.lora_A"], torch.tensor([[0.5775]], dtype=DT))
    close(alloc.exp_avg_unc["lin.lora_A"], torch.tensor([[0.47175]], dtype=DT))


def test_parameters_without_gradient_are_skipped() -> None:
    # In trace 2, at step index 2, embed.lora_A and blocks.1.lora_E have no gradient.
    trace = TRACES[2]
    snapshots = [{k: {n: v.clone() for n, v in getattr(a, k).items()} for k in ("ipt", "exp_avg_ipt", "exp_avg_unc")}
                 for _, a, _ in replay(trace)]
    for name in ("embed.lora_A", "blocks.1.lora_E"):
        for key in ("ipt", "exp_avg_ipt", "exp_avg_unc"):
            assert torch.equal(snapshots[2][key][name], snapshots[1][key][name])
    # ... while the others moved on.
    assert not torch.equal(snapshots[2]["exp_avg_ipt"]["embed.lora_B"], snapshots[1]["exp_avg_ipt"]["embed.lora_B"])


def test_beta1_zero_limit() -> None:
    # beta1 = 0: the smoothed sensitivity is the current one, so |I - I_bar| = 0 and U_bar only decays.
    trace = {**TRACES[0], "beta1": 0.0, "beta2": 0.6}
    for _, alloc, _ in replay(trace):
        for name in LORA_NAMES:
            close(alloc.exp_avg_ipt[name], alloc.ipt[name])
            assert torch.count_nonzero(alloc.exp_avg_unc[name]) == 0


def test_sensitivity_is_sign_invariant_and_state_is_detached() -> None:
    trace = TRACES[1]
    flipped = {**trace, "steps": [
        {**s, "grads": {n: -g for n, g in s["grads"].items()},
         "params": {n: (-p if i % 2 else p) for i, (n, p) in enumerate(s["params"].items())}}
        for s in trace["steps"]]}
    for (m1, a1, _), (m2, a2, _) in zip(replay(trace), replay(flipped)):
        for name in LORA_NAMES:
            close(a1.exp_avg_unc[name], a2.exp_avg_unc[name])
            assert not a1.exp_avg_ipt[name].requires_grad
            assert a1.exp_avg_ipt[name].shape == dict(m1.named_parameters())[name].shape


def test_update_ipt_leaves_parameters_and_gradients_alone() -> None:
    model, alloc, step = next(replay(TRACES[0], upto=1))
    for name, p in model.named_parameters():
        assert torch.equal(p.detach(), step["params"][name])
        assert torch.equal(p.grad, step["grads"][name])


# ---------------------------------------------------------------- mask_to_budget
def masked_model(case: dict) -> tuple[ToyAdapted, RankAllocator]:
    model = ToyAdapted()
    model.load_state_dict(case["state"], strict=False)
    alloc = make_allocator(model)
    alloc.exp_avg_ipt = {k: v.clone() for k, v in case["exp_avg_ipt"].items()}
    alloc.exp_avg_unc = {k: v.clone() for k, v in case["exp_avg_unc"].items()}
    return model, alloc


def triplet_scores(case: dict) -> dict[str, torch.Tensor]:
    # From paper.md: S_i = s(lambda_i) + mean_j s(Q_ij) + mean_j s(P_ji), with s = I_bar * U_bar.
    s = {n: case["exp_avg_ipt"][n] * case["exp_avg_unc"][n] for n in LORA_NAMES}
    return {layer: s[f"{layer}.lora_E"][:, 0] + s[f"{layer}.lora_A"].mean(1) + s[f"{layer}.lora_B"].mean(0)
            for layer in LAYERS}


@pytest.mark.parametrize("idx", range(len(MASKS)))
def test_mask_to_budget_matches_reference(idx: int) -> None:
    case = MASKS[idx]
    model, alloc = masked_model(case)
    threshold = alloc.mask_to_budget(model, case["budget"])
    if case["threshold"] is None:
        assert threshold is None
    else:
        assert isinstance(threshold, float)
        assert threshold == pytest.approx(case["threshold"], rel=1e-12, abs=0)
    params = dict(model.named_parameters())
    for name, expected in case["lora_E_after"].items():
        assert torch.equal(params[name].detach(), expected), name
    # Only the singular values are touched.
    for name, value in case["state"].items():
        if not name.endswith("lora_E"):
            assert torch.equal(params[name].detach(), value), name
    for name in LORA_NAMES:
        assert torch.equal(alloc.exp_avg_ipt[name], case["exp_avg_ipt"][name])
        assert torch.equal(alloc.exp_avg_unc[name], case["exp_avg_unc"][name])


@pytest.mark.parametrize("idx", range(len(MASKS)))
def test_global_top_budget_triplets_survive(idx: int) -> None:
    case = MASKS[idx]
    model, alloc = masked_model(case)
    alloc.mask_to_budget(model, case["budget"])
    scores = triplet_scores(case)
    all_scores = torch.cat(list(scores.values()))
    keep = min(case["budget"], all_scores.numel())
    cutoff = all_scores.sort(descending=True).values[keep - 1] if keep > 0 else float("inf")
    n_alive = 0
    for layer, s in scores.items():
        e = getattr(model, layer.split(".")[0]) if layer == "embed" else model.blocks[int(layer.split(".")[1])]
        alive = e.lora_E.detach()[:, 0] != 0
        n_alive += int(alive.sum())
        # Survivors are exactly the triplets among the `budget` best scores of the whole model.
        assert torch.equal(alive, s >= cutoff), layer
    assert n_alive == keep


def test_mask_to_budget_hand_computed() -> None:
    # One layer, d_in = 2, d_out = 2, r = 3. With U_bar = 1 everywhere, s = I_bar, and
    #   S_0 = 0.1 + mean(0.2, 0.4) + mean(0.0, 0.6) = 0.1 + 0.3 + 0.3 = 0.7
    #   S_1 = 0.5 + mean(0.1, 0.1) + mean(0.2, 0.2) = 0.5 + 0.1 + 0.2 = 0.8
    #   S_2 = 0.0 + mean(0.3, 0.1) + mean(0.1, 0.1) = 0.0 + 0.2 + 0.1 = 0.3
    # budget 1 -> prune n - b = 2 triplets; threshold = 2nd smallest score = 0.7 -> triplets 0 and 2 pruned.
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
    threshold = alloc.mask_to_budget(model, 1)
    assert threshold == pytest.approx(0.7, abs=1e-12)
    assert torch.equal(model["lin"].lora_E.detach(), torch.tensor([[0.0], [2.0], [0.0]], dtype=DT))
    # Ties at the threshold are pruned: with budget 2 the threshold is S_2 = 0.3 and only triplet 2 goes.
    with torch.no_grad():
        model["lin"].lora_E.copy_(torch.tensor([[1.0], [2.0], [3.0]], dtype=DT))
    assert alloc.mask_to_budget(model, 2) == pytest.approx(0.3, abs=1e-12)
    assert torch.equal(model["lin"].lora_E.detach(), torch.tensor([[1.0], [2.0], [0.0]], dtype=DT))


def test_importance_is_the_product_of_sensitivity_and_uncertainty() -> None:
    # Swapping I_bar and U_bar leaves s = I_bar * U_bar, hence the pruning, unchanged; scaling U_bar by 10
    # scales every score by 10 and leaves the pruning unchanged but the threshold times 10.
    case = MASKS[4]
    model1, alloc1 = masked_model(case)
    t1 = alloc1.mask_to_budget(model1, case["budget"])
    model2, alloc2 = masked_model(case)
    alloc2.exp_avg_ipt, alloc2.exp_avg_unc = alloc2.exp_avg_unc, alloc2.exp_avg_ipt
    t2 = alloc2.mask_to_budget(model2, case["budget"])
    model3, alloc3 = masked_model(case)
    alloc3.exp_avg_unc = {k: 10 * v for k, v in alloc3.exp_avg_unc.items()}
    t3 = alloc3.mask_to_budget(model3, case["budget"])
    assert t1 == pytest.approx(t2, rel=1e-12) and t3 == pytest.approx(10 * t1, rel=1e-12)
    for (n, p1), p2, p3 in zip(model1.named_parameters(), model2.parameters(), model3.parameters()):
        assert torch.equal(p1, p2) and torch.equal(p1, p3), n


def test_pruning_is_monotone_in_the_budget() -> None:
    # A smaller budget prunes a superset; pruning again with the same budget changes nothing.
    case = MASKS[2]
    model, alloc = masked_model(case)
    alloc.mask_to_budget(model, 6)
    alive6 = {n: p.detach().clone() for n, p in model.named_parameters() if n.endswith("lora_E")}
    alloc.mask_to_budget(model, 6)
    for n, p in model.named_parameters():
        if n.endswith("lora_E"):
            assert torch.equal(p.detach(), alive6[n])
    alloc.mask_to_budget(model, 2)
    n_alive = 0
    for n, p in model.named_parameters():
        if n.endswith("lora_E"):
            assert torch.all((alive6[n] != 0) | (p.detach() == 0))
            n_alive += int(torch.count_nonzero(p.detach()))
    assert n_alive == 2
