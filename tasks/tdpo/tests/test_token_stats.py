"""Hidden tests for tdpo/1: `token_level_stats` in tdpo/token_stats.py."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from tdpo.token_stats import token_level_stats

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "token_stats_cases.pt", weights_only=True)


def assert_close(got: torch.Tensor, want: torch.Tensor, rtol: float, atol: float, what: str = "") -> None:
    """|got - want| <= atol + rtol * |want| elementwise, same shape (torch.testing is slow to import)."""
    assert isinstance(got, torch.Tensor), f"{what}: expected a tensor, got {type(got)}"
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    got, want = got.detach().to(torch.float64), want.detach().to(torch.float64)
    ok = torch.isclose(got, want, rtol=rtol, atol=atol)
    if not bool(ok.all()):
        bad = (~ok).nonzero()[0].tolist()
        raise AssertionError(
            f"{what}: {int((~ok).sum())} mismatched values, e.g. at {bad}: "
            f"got {got[tuple(bad)].item()!r}, want {want[tuple(bad)].item()!r}"
        )


def tol(dtype: torch.dtype) -> dict:
    return dict(rtol=1e-9, atol=1e-10) if dtype == torch.float64 else dict(rtol=1e-4, atol=1e-5)


def case_id(i: int) -> str:
    c = CASES[i]
    return f"{i}-{tuple(c['policy_logits'].shape)}-ign{c['ignore_index']}-{str(c['policy_logits'].dtype)[6:]}"


def call(case, policy_logits=None):
    pl = case["policy_logits"] if policy_logits is None else policy_logits
    if case["ignore_index"] == -100:
        return token_level_stats(pl, case["reference_logits"], case["labels"])
    return token_level_stats(pl, case["reference_logits"], case["labels"], ignore_index=case["ignore_index"])


# ---------------------------------------------------------------- differential (reference fixtures)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_matches_reference(i):
    case = CASES[i]
    dtype = case["policy_logits"].dtype
    out = call(case)
    assert isinstance(out, tuple) and len(out) == 2
    for name, got in zip(("logps_margin", "seq_kl"), out):
        want = case[name]
        assert got.shape == want.shape, f"{name}: shape {tuple(got.shape)} != {tuple(want.shape)}"
        assert got.dtype == dtype, f"{name}: dtype {got.dtype} != {dtype}"
        assert_close(got, want, **tol(dtype), what=name)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_gradients_match_reference(i):
    case = CASES[i]
    dtype = case["policy_logits"].dtype
    pl = case["policy_logits"].clone().requires_grad_(True)
    margin, kl = call(case, pl)
    (g_margin,) = torch.autograd.grad(margin.sum(), pl, retain_graph=True)
    (g_kl,) = torch.autograd.grad(kl.sum(), pl)
    assert_close(g_margin, case["grad_margin"], **tol(dtype), what="d logps_margin / d policy_logits")
    assert_close(g_kl, case["grad_kl"], **tol(dtype), what="d seq_kl / d policy_logits")


# ---------------------------------------------------------------- values checked by hand


def hand_example():
    # One sequence of two tokens, vocabulary {0, 1}; token 0 is the prompt, token 1 (= id 1) the response.
    # The logits at position 0 predict position 1: policy [0, 0] -> probs (1/2, 1/2);
    # reference [log 3, 0] -> probs (3/4, 1/4). The logits at the last position predict nothing.
    policy = torch.tensor([[[0.0, 0.0], [5.0, -2.0]]], dtype=torch.float64)
    reference = torch.tensor([[[math.log(3.0), 0.0], [-1.0, 4.0]]], dtype=torch.float64)
    labels = torch.tensor([[-100, 1]])
    return policy, reference, labels


def test_hand_checked_values():
    policy, reference, labels = hand_example()
    margin, kl = token_level_stats(policy, reference, labels)
    # log-ratio of the response token: log(1/2) - log(1/4) = log 2 = 0.6931471805599453
    assert margin.shape == (1,) and kl.shape == (1,)
    assert margin.item() == pytest.approx(0.6931471805599453, rel=1e-12)
    # KL(ref || policy) = 3/4 log((3/4)/(1/2)) + 1/4 log((1/4)/(1/2)) = 0.75 log 1.5 - 0.25 log 2 = 0.13081203594113697
    # (the other direction, KL(policy || ref) = 0.14384103622589042, is wrong)
    assert kl.item() == pytest.approx(0.13081203594113697, rel=1e-12)


def test_hand_checked_gradient():
    # d KL(ref || pi) / d policy logits = softmax(policy) - softmax(ref) = (1/2 - 3/4, 1/2 - 1/4) = (-1/4, 1/4)
    # d log pi(y=1) / d policy logits = onehot(1) - softmax(policy) = (-1/2, 1/2); the last position gets 0.
    policy, reference, labels = hand_example()
    policy.requires_grad_(True)
    margin, kl = token_level_stats(policy, reference, labels)
    (g_kl,) = torch.autograd.grad(kl.sum(), policy, retain_graph=True)
    (g_m,) = torch.autograd.grad(margin.sum(), policy)
    assert_close(g_kl, torch.tensor([[[-0.25, 0.25], [0.0, 0.0]]], dtype=torch.float64), rtol=1e-12, atol=1e-14)
    assert_close(g_m, torch.tensor([[[-0.5, 0.5], [0.0, 0.0]]], dtype=torch.float64), rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- properties


def random_case(seed: int, batch=4, seq_len=7, vocab=6):
    g = torch.Generator().manual_seed(seed)
    policy = 2 * torch.randn(batch, seq_len, vocab, generator=g, dtype=torch.float64)
    reference = 2 * torch.randn(batch, seq_len, vocab, generator=g, dtype=torch.float64)
    labels = torch.randint(0, vocab, (batch, seq_len), generator=g)
    labels[:, :2] = -100  # prompt
    labels[1, 5:] = -100  # padding
    labels[2, 3:] = -100
    return policy, reference, labels


def test_policy_equal_to_reference_gives_zeros():
    policy, _, labels = random_case(1)
    margin, kl = token_level_stats(policy, policy.clone(), labels)
    assert_close(margin, torch.zeros(4, dtype=torch.float64), rtol=0, atol=1e-12)
    assert_close(kl, torch.zeros(4, dtype=torch.float64), rtol=0, atol=1e-12)


def test_kl_is_nonnegative_and_logits_shift_invariant():
    policy, reference, labels = random_case(2)
    margin, kl = token_level_stats(policy, reference, labels)
    assert torch.all(kl > 0)
    # adding any constant to all logits of one position leaves every distribution unchanged
    g = torch.Generator().manual_seed(0)
    shift_p = 10 * torch.randn(4, 7, 1, generator=g, dtype=torch.float64)
    shift_r = 10 * torch.randn(4, 7, 1, generator=g, dtype=torch.float64)
    margin2, kl2 = token_level_stats(policy + shift_p, reference + shift_r, labels)
    assert_close(margin2, margin, rtol=1e-10, atol=1e-10)
    assert_close(kl2, kl, rtol=1e-10, atol=1e-10)


def test_unscored_positions_do_not_matter():
    # Logits at a position whose *next* label is ignored, and at the last position, are never used.
    policy, reference, labels = random_case(3)
    margin, kl = token_level_stats(policy, reference, labels)
    scored_next = torch.zeros(4, 7, dtype=torch.bool)
    scored_next[:, :-1] = labels[:, 1:] != -100
    noise = 50 * torch.randn(4, 7, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    keep = scored_next[..., None]
    margin2, kl2 = token_level_stats(torch.where(keep, policy, noise), torch.where(keep, reference, -noise), labels)
    assert_close(margin2, margin, rtol=1e-12, atol=1e-12)
    assert_close(kl2, kl, rtol=1e-12, atol=1e-12)
    # a row without any scored token has zero log-ratio and zero KL
    labels[0] = -100
    margin3, kl3 = token_level_stats(policy, reference, labels)
    assert margin3[0].item() == 0.0 and kl3[0].item() == 0.0


def test_gradient_of_sequential_kl():
    # d/d z_t KL(softmax(r_t) || softmax(z_t)) = softmax(z_t) - softmax(r_t) at every scored position
    # (the logits one step before a scored token), zero elsewhere.
    policy, reference, labels = random_case(4)
    policy.requires_grad_(True)
    margin, kl = token_level_stats(policy, reference, labels)
    (g_kl,) = torch.autograd.grad(kl.sum(), policy, retain_graph=True)
    (g_m,) = torch.autograd.grad(margin.sum(), policy)
    scored_next = torch.zeros(4, 7, 1, dtype=torch.float64)
    scored_next[:, :-1, 0] = (labels[:, 1:] != -100).double()
    p, r = policy.detach().softmax(-1), reference.softmax(-1)
    assert_close(g_kl, scored_next * (p - r), rtol=1e-10, atol=1e-13, what="KL gradient")
    onehot = torch.zeros_like(p)
    onehot[:, :-1] = torch.nn.functional.one_hot(labels[:, 1:].clamp(min=0), 6).double()
    assert_close(g_m, scored_next * (onehot - p), rtol=1e-10, atol=1e-13, what="log-ratio gradient")


def test_custom_ignore_index_and_batch_independence():
    policy, reference, labels = random_case(5)
    base = token_level_stats(policy, reference, labels)
    other = token_level_stats(policy, reference, labels.masked_fill(labels == -100, -7), ignore_index=-7)
    for a, b in zip(base, other):
        assert_close(b, a, rtol=1e-12, atol=1e-12)
    single = token_level_stats(policy[1:2], reference[1:2], labels[1:2])
    for a, b in zip(base, single):
        assert b.shape == (1,)
        assert_close(b, a[1:2], rtol=1e-12, atol=1e-12)
