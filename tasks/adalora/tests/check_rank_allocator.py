"""Trusted checks for adalora/2 (never enter the sandbox): the hand-computed statistics and threshold and the
properties of RankAllocator.update_ipt / mask_to_budget, on the outputs probe_rank_allocator.py emitted. The
default comparison with the reference's outputs has already passed; inputs are read from the reference's run."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import CheckFailed, check, close, equal, expect

# fnmatch reads "[...]" as a character class, so parametrised cases are matched as "name*"

RTOL, ATOL = 1e-12, 1e-12
STATES = ("ipt", "exp_avg_ipt", "exp_avg_unc")
LAYERS = {"embed": 3, "blocks.0": 2, "blocks.1": 4}
LORA_NAMES = sorted(f"{layer}.{kind}" for layer in LAYERS for kind in ("lora_A", "lora_E", "lora_B"))


def keys(values: dict, prefix: str) -> list[str]:
    """The names under `prefix.` of an emitted dictionary (its marker decodes to ("map", "k1,k2,...")."""
    marker = values.get(prefix)
    if not (isinstance(marker, tuple) and marker[0] == "map"):
        raise CheckFailed(f"{prefix}: not a dictionary")
    return sorted(k for k in marker[1].split(",") if k)


def approx(got, want: float, what: str, rel: float | None = None, absolute: float | None = None) -> None:
    """pytest.approx(want, rel=, abs=): |got - want| <= max(rel * |want|, abs), abs 1e-12 when only rel is given."""
    tol = absolute if rel is None else max(rel * abs(want), 1e-12 if absolute is None else absolute)
    if not isinstance(got, float) or not abs(got - want) <= tol:
        raise CheckFailed(f"{what}: got {got!r}, want {want!r} +- {tol:g}")


def steps(out) -> list[str]:
    return sorted((k for k in out if k.startswith("step") and "." not in k), key=lambda k: int(k[4:]))


# ---------------------------------------------------------------- update_ipt


@check("importance_statistics_match_reference_over_several_steps*")
def statistics_keys(out, ref):
    expect(len(steps(out)) == 5, "five steps")
    for step in steps(out):
        for key in STATES:
            equal(keys(out, f"{step}.{key}"), LORA_NAMES, what=f"{step}: names in {key}")


@check("update_ipt_hand_computed")
def update_ipt_hand_computed(out, ref):
    # One entry of lora_A, beta1 = beta2 = 0.85, averages start at zero.
    # Step 1: w = 2, g = 0.5 -> I = 1;  I_bar = 0.15 * 1 = 0.15;  U_bar = 0.15 * |1 - 0.15| = 0.1275.
    # Step 2: w = -1, g = 3 -> I = 3;  I_bar = 0.85*0.15 + 0.15*3 = 0.5775;
    #         U_bar = 0.85*0.1275 + 0.15*|3 - 0.5775| = 0.108375 + 0.363375 = 0.47175.
    close(out["step1.exp_avg_ipt"], [[0.15]], rtol=RTOL, atol=ATOL, what="I_bar after step 1")
    close(out["step1.exp_avg_unc"], [[0.1275]], rtol=RTOL, atol=ATOL, what="U_bar after step 1")
    close(out["step2.ipt"], [[3.0]], rtol=RTOL, atol=ATOL, what="I after step 2")
    close(out["step2.exp_avg_ipt"], [[0.5775]], rtol=RTOL, atol=ATOL, what="I_bar after step 2")
    close(out["step2.exp_avg_unc"], [[0.47175]], rtol=RTOL, atol=ATOL, what="U_bar after step 2")


@check("parameters_without_gradient_are_skipped")
def skipped(out, ref):
    for name in ("embed.lora_A", "blocks.1.lora_E"):
        for key in STATES:
            equal(out[f"step2.{key}.{name}"], out[f"step1.{key}.{name}"], what=f"{key}[{name}] without gradient")
    # ... while the others moved on.
    expect(not np.array_equal(out["step2.exp_avg_ipt.embed.lora_B"], out["step1.exp_avg_ipt.embed.lora_B"]),
           "exp_avg_ipt[embed.lora_B] did not move although it has a gradient")


@check("beta1_zero_limit")
def beta1_zero(out, ref):
    for step in steps(out):
        for name in LORA_NAMES:
            close(out[f"{step}.exp_avg_ipt.{name}"], out[f"{step}.ipt.{name}"], rtol=RTOL, atol=ATOL,
                  what=f"{step}: I_bar = I for {name}")
            expect(np.count_nonzero(out[f"{step}.exp_avg_unc.{name}"]) == 0, f"{step}: U_bar[{name}] is not zero")


@check("sensitivity_is_sign_invariant_and_state_is_detached")
def sign_invariant(out, ref):
    expect(len(steps(out)) == 5, "five steps")
    for step in steps(out):
        for name in LORA_NAMES:
            close(out[f"{step}.unc.{name}"], out[f"{step}.unc_flipped.{name}"], rtol=RTOL, atol=ATOL,
                  what=f"{step}: U_bar[{name}] with flipped signs")
            equal(out[f"{step}.ipt_requires_grad.{name}"], False, what=f"{step}: I_bar[{name}] is detached")
            n = ref[f"{step}.param_shape.{name}"][1]
            equal([out[f"{step}.ipt_shape.{name}.{i}"] for i in range(n)],
                  [ref[f"{step}.param_shape.{name}.{i}"] for i in range(n)], what=f"{step}: shape of I_bar[{name}]")


@check("update_ipt_leaves_parameters_and_gradients_alone")
def leaves_alone(out, ref):
    for key in ref:
        if key.startswith(("params.", "grads.")) and "#" not in key:
            equal(out[key], ref[key], what=key)


# ---------------------------------------------------------------- mask_to_budget


@check("mask_to_budget_matches_reference*")
def mask_matches(out, ref):
    if ref["threshold_type"] == "NoneType":
        equal(out["threshold_type"], "NoneType", what="threshold is None")
    else:
        equal(out["threshold_type"], "float", what="threshold is a float")
        approx(out["threshold"], ref["threshold"], "threshold", rel=1e-12, absolute=0.0)
    # the singular values as the reference masked them; every other tensor and the statistics untouched
    for key in ref:
        if key.startswith(("params.", "exp_avg_ipt.", "exp_avg_unc.")) and "#" not in key:
            equal(out[key], ref[key], what=key)


def _triplet_scores(ref) -> dict[str, np.ndarray]:
    # From paper.md: S_i = s(lambda_i) + mean_j s(Q_ij) + mean_j s(P_ji), with s = I_bar * U_bar.
    s = {n: ref[f"in_ipt.{n}"] * ref[f"in_unc.{n}"] for n in LORA_NAMES}
    return {layer: s[f"{layer}.lora_E"][:, 0] + s[f"{layer}.lora_A"].mean(1) + s[f"{layer}.lora_B"].mean(0)
            for layer in LAYERS}


@check("global_top_budget_triplets_survive*")
def top_budget(out, ref):
    scores = _triplet_scores(ref)
    all_scores = np.concatenate(list(scores.values()))
    keep = min(ref["budget"], all_scores.size)
    cutoff = np.sort(all_scores)[::-1][keep - 1] if keep > 0 else float("inf")
    n_alive = 0
    for layer, s in scores.items():
        alive = out[f"lora_E.{layer}.lora_E"][:, 0] != 0
        n_alive += int(alive.sum())
        # Survivors are exactly the triplets among the `budget` best scores of the whole model.
        equal(alive, s >= cutoff, what=f"{layer}: surviving triplets")
    equal(n_alive, keep, what="number of surviving triplets")


@check("mask_to_budget_hand_computed")
def mask_hand(out, ref):
    # One layer, d_in = 2, d_out = 2, r = 3. With U_bar = 1 everywhere, s = I_bar, and
    #   S_0 = 0.1 + mean(0.2, 0.4) + mean(0.0, 0.6) = 0.1 + 0.3 + 0.3 = 0.7
    #   S_1 = 0.5 + mean(0.1, 0.1) + mean(0.2, 0.2) = 0.5 + 0.1 + 0.2 = 0.8
    #   S_2 = 0.0 + mean(0.3, 0.1) + mean(0.1, 0.1) = 0.0 + 0.2 + 0.1 = 0.3
    # budget 1 -> prune n - b = 2 triplets; threshold = 2nd smallest score = 0.7 -> triplets 0 and 2 pruned.
    approx(out["threshold_budget1.threshold"], 0.7, "threshold for budget 1", absolute=1e-12)
    equal(out["lora_E_budget1"], np.array([[0.0], [2.0], [0.0]]), what="singular values for budget 1")
    # Ties at the threshold are pruned: with budget 2 the threshold is S_2 = 0.3 and only triplet 2 goes.
    approx(out["threshold_budget2.threshold"], 0.3, "threshold for budget 2", absolute=1e-12)
    equal(out["lora_E_budget2"], np.array([[1.0], [2.0], [0.0]]), what="singular values for budget 2")


@check("importance_is_the_product_of_sensitivity_and_uncertainty")
def product(out, ref):
    t1, t2, t3 = out["t1.threshold"], out["t2.threshold"], out["t3.threshold"]
    expect(all(isinstance(t, float) for t in (t1, t2, t3)), "thresholds are not floats")
    approx(t1, t2, "threshold with I_bar and U_bar swapped", rel=1e-12)
    approx(t3, 10 * t1, "threshold with U_bar times 10", rel=1e-12)
    for key in ref:
        if key.startswith("params1.") and "#" not in key:
            name = key[len("params1."):]
            equal(out[f"params2.{name}"], out[key], what=f"{name} with I_bar and U_bar swapped")
            equal(out[f"params3.{name}"], out[key], what=f"{name} with U_bar times 10")


@check("pruning_is_monotone_in_the_budget")
def monotone(out, ref):
    names = [k[len("lora_E_budget6."):] for k in ref if k.startswith("lora_E_budget6.") and "#" not in k]
    expect(len(names) == 3, "three adapted layers")
    n_alive = 0
    for name in names:
        alive6 = out[f"lora_E_budget6.{name}"]
        equal(out[f"lora_E_budget6_again.{name}"], alive6, what=f"{name}: pruning again with budget 6")
        after = out[f"lora_E_budget2.{name}"]
        expect(bool(np.all((alive6 != 0) | (after == 0))), f"{name}: budget 2 revives a pruned triplet")
        n_alive += int(np.count_nonzero(after))
    equal(n_alive, 2, what="survivors with budget 2")
