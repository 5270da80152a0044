"""Probe for tdpo/1: `token_level_stats` in tdpo/token_stats.py. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox) at the old
differential tolerance (float64: rtol 1e-9, atol 1e-10; float32: rtol 1e-4, atol 1e-5); the trusted checks in
check_token_stats.py hold the hand-checked values and the properties, at the old tests' tolerances. One case
per old pytest test (tests/test_token_stats.py before the port)."""
from __future__ import annotations

import math
from pathlib import Path

import torch

from lmrbench_probe import case
from tdpo.token_stats import token_level_stats

CASES = torch.load(Path(__file__).parent / "fixtures" / "token_stats_cases.pt", weights_only=True)
F64 = dict(rtol=1e-9, atol=1e-10)
F32 = dict(rtol=1e-4, atol=1e-5)


def case_id(i: int) -> str:
    c = CASES[i]
    return f"{i}-{tuple(c['policy_logits'].shape)}-ign{c['ignore_index']}-{str(c['policy_logits'].dtype)[6:]}"


IDS = [case_id(i) for i in range(len(CASES))]


def call(c, policy_logits=None):
    pl = c["policy_logits"] if policy_logits is None else policy_logits
    if c["ignore_index"] == -100:
        return token_level_stats(pl, c["reference_logits"], c["labels"])
    return token_level_stats(pl, c["reference_logits"], c["labels"], ignore_index=c["ignore_index"])


def prefix(c) -> str:
    """float32 cases' outputs carry the float32 tolerance (see the `outputs` patterns)."""
    return "f32." if c["policy_logits"].dtype == torch.float32 else ""


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(CASES)), ids=IDS, **F64, outputs={"f32.*": F32})
def matches_reference(i):
    c = CASES[i]
    out = call(c)
    margin, kl = out
    p = prefix(c)
    return {"is_tuple": isinstance(out, tuple), f"{p}logps_margin": margin, f"{p}seq_kl": kl}


@case(params=range(len(CASES)), ids=IDS, **F64, outputs={"f32.*": F32})
def gradients_match_reference(i):
    c = CASES[i]
    pl = c["policy_logits"].clone().requires_grad_(True)
    margin, kl = call(c, pl)
    (g_margin,) = torch.autograd.grad(margin.sum(), pl, retain_graph=True)
    (g_kl,) = torch.autograd.grad(kl.sum(), pl)
    p = prefix(c)
    return {f"{p}grad_margin": g_margin, f"{p}grad_kl": g_kl}


# ---------------------------------------------------------------- values checked by hand (check file)


def hand_example():
    # One sequence of two tokens, vocabulary {0, 1}; token 0 is the prompt, token 1 (= id 1) the response.
    # The logits at position 0 predict position 1: policy [0, 0] -> probs (1/2, 1/2);
    # reference [log 3, 0] -> probs (3/4, 1/4). The logits at the last position predict nothing.
    policy = torch.tensor([[[0.0, 0.0], [5.0, -2.0]]], dtype=torch.float64)
    reference = torch.tensor([[[math.log(3.0), 0.0], [-1.0, 4.0]]], dtype=torch.float64)
    labels = torch.tensor([[-100, 1]])
    return policy, reference, labels


@case(**F64)
def hand_checked_values():
    margin, kl = token_level_stats(*hand_example())
    return {"margin": margin, "kl": kl}


@case(**F64)
def hand_checked_gradient():
    policy, reference, labels = hand_example()
    policy.requires_grad_(True)
    margin, kl = token_level_stats(policy, reference, labels)
    (g_kl,) = torch.autograd.grad(kl.sum(), policy, retain_graph=True)
    (g_m,) = torch.autograd.grad(margin.sum(), policy)
    return {"grad_kl": g_kl, "grad_margin": g_m}


# ---------------------------------------------------------------- properties (check file)


def random_case(seed: int, batch=4, seq_len=7, vocab=6):
    g = torch.Generator().manual_seed(seed)
    policy = 2 * torch.randn(batch, seq_len, vocab, generator=g, dtype=torch.float64)
    reference = 2 * torch.randn(batch, seq_len, vocab, generator=g, dtype=torch.float64)
    labels = torch.randint(0, vocab, (batch, seq_len), generator=g)
    labels[:, :2] = -100  # prompt
    labels[1, 5:] = -100  # padding
    labels[2, 3:] = -100
    return policy, reference, labels


@case(**F64)
def policy_equal_to_reference_gives_zeros():
    policy, _, labels = random_case(1)
    margin, kl = token_level_stats(policy, policy.clone(), labels)
    return {"margin": margin, "kl": kl}


@case(**F64)
def kl_is_nonnegative_and_logits_shift_invariant():
    policy, reference, labels = random_case(2)
    margin, kl = token_level_stats(policy, reference, labels)
    # adding any constant to all logits of one position leaves every distribution unchanged
    g = torch.Generator().manual_seed(0)
    shift_p = 10 * torch.randn(4, 7, 1, generator=g, dtype=torch.float64)
    shift_r = 10 * torch.randn(4, 7, 1, generator=g, dtype=torch.float64)
    margin2, kl2 = token_level_stats(policy + shift_p, reference + shift_r, labels)
    return {"margin": margin, "kl": kl, "shifted_margin": margin2, "shifted_kl": kl2}


@case(**F64)
def unscored_positions_do_not_matter():
    # Logits at a position whose *next* label is ignored, and at the last position, are never used.
    policy, reference, labels = random_case(3)
    margin, kl = token_level_stats(policy, reference, labels)
    scored_next = torch.zeros(4, 7, dtype=torch.bool)
    scored_next[:, :-1] = labels[:, 1:] != -100
    noise = 50 * torch.randn(4, 7, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    keep = scored_next[..., None]
    margin2, kl2 = token_level_stats(torch.where(keep, policy, noise), torch.where(keep, reference, -noise), labels)
    # a row without any scored token has zero log-ratio and zero KL
    labels[0] = -100
    margin3, kl3 = token_level_stats(policy, reference, labels)
    return {"margin": margin, "kl": kl, "noised_margin": margin2, "noised_kl": kl2,
            "empty_row_margin": margin3[0].item(), "empty_row_kl": kl3[0].item()}


@case(**F64)
def gradient_of_sequential_kl():
    policy, reference, labels = random_case(4)
    policy.requires_grad_(True)
    margin, kl = token_level_stats(policy, reference, labels)
    (g_kl,) = torch.autograd.grad(kl.sum(), policy, retain_graph=True)
    (g_m,) = torch.autograd.grad(margin.sum(), policy)
    return {"policy": policy.detach(), "reference": reference, "labels": labels, "grad_kl": g_kl, "grad_margin": g_m}


@case(**F64)
def custom_ignore_index_and_batch_independence():
    policy, reference, labels = random_case(5)
    base = token_level_stats(policy, reference, labels)
    other = token_level_stats(policy, reference, labels.masked_fill(labels == -100, -7), ignore_index=-7)
    single = token_level_stats(policy[1:2], reference[1:2], labels[1:2])
    return {"base": base, "other": other, "single": single}
