"""Hidden tests for nsa/1: nsa_attention (naive Native Sparse Attention for one sequence)."""

import math
from pathlib import Path

import pytest
import torch

from nsa.attention import nsa_attention

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "nsa_cases.pt", weights_only=True)
NAMES = ["q", "k_cmp", "v_cmp", "k_slc", "v_slc", "k_win", "v_win", "gates"]
ATOL, RTOL = 1e-9, 1e-7
F64 = torch.float64


def assert_close(got, expected, atol=ATOL, rtol=RTOL):
    """Shape check plus |got - expected| <= atol + rtol * |expected| elementwise."""
    assert isinstance(got, torch.Tensor), type(got)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    got = got.to(expected.dtype)
    assert torch.allclose(got, expected, atol=atol, rtol=rtol), f"max abs diff {(got - expected).abs().max():.3e}"


def random_inputs(seq_len, heads, groups, dk, dv, l, d, seed, q_mult=1.0):
    gen = torch.Generator().manual_seed(seed)
    n_cmp = (seq_len - l) // d + 1 if seq_len >= l else 0

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=F64)

    return {
        "q": q_mult * randn(seq_len, heads, dk),
        "k_cmp": randn(n_cmp, groups, dk),
        "v_cmp": randn(n_cmp, groups, dv),
        "k_slc": randn(seq_len, groups, dk),
        "v_slc": randn(seq_len, groups, dv),
        "k_win": randn(seq_len, groups, dk),
        "v_win": randn(seq_len, groups, dv),
        "gates": torch.sigmoid(randn(seq_len, heads, 3)),
    }


KW = dict(cmp_block_size=4, cmp_stride=2, slc_block_size=4, num_selected=3, window_size=3,
          num_init_blocks=1, num_local_blocks=1)


def one_hot_gates(inputs, branch):
    gates = torch.zeros_like(inputs["gates"])
    gates[..., branch] = 1.0
    return {**inputs, "gates": gates}


def causal_attention(q, k, v, scale, window=None):
    """Plain causal softmax attention with GQA (h -> kv head h // (H / G)), optional sliding window."""
    seq_len, heads, _ = q.shape
    group = heads // k.shape[1]
    kk = k.repeat_interleave(group, dim=1)
    vv = v.repeat_interleave(group, dim=1)
    logits = scale * torch.einsum("thd,shd->hts", q, kk)
    t = torch.arange(seq_len)
    allowed = t[None, :] <= t[:, None]
    if window is not None:
        allowed &= t[None, :] > t[:, None] - window
    logits = logits.masked_fill(~allowed, float("-inf"))
    return torch.einsum("hts,shd->thd", torch.softmax(logits, dim=-1), vv)


# ---------------------------------------------------------------- differential checks (fixtures)


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_output_and_selection_match_reference(idx):
    case = CASES[idx]
    out, selection = nsa_attention(**case["inputs"], **case["kwargs"], return_selection=True)
    assert out.dtype == F64
    assert selection.dtype == torch.bool
    assert torch.equal(selection.cpu(), case["selection"]), "selected blocks differ"
    assert_close(out.detach(), case["output"])


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_gradients_match_reference(idx):
    case = CASES[idx]
    leaf = {k: v.clone().requires_grad_(True) for k, v in case["inputs"].items()}
    out = nsa_attention(**leaf, **case["kwargs"])
    grads = torch.autograd.grad((out * case["cotangent"]).sum(), [leaf[k] for k in NAMES], allow_unused=True)
    for name, g in zip(NAMES, grads):
        g = torch.zeros_like(leaf[name]) if g is None else g
        assert_close(g, case["grads"][name])


def test_default_return_is_output_only():
    case = CASES[0]
    out = nsa_attention(**case["inputs"], **case["kwargs"])
    assert isinstance(out, torch.Tensor)
    assert_close(out.detach(), case["output"])


# ---------------------------------------------------------------- values checked by hand


def test_hand_checked_small_sequence():
    # T = 4, one head, dk = dv = 1, q_t = 1, scale 1, l = d = l' = 2, n = 1, w = 2, no forced blocks.
    # compressed block 0 = positions {0,1} (visible from t = 1), block 1 = {2,3} (visible at t = 3)
    ln = math.log
    col = lambda *xs: torch.tensor(xs, dtype=F64).view(-1, 1, 1)  # noqa: E731
    inputs = {
        "q": col(1, 1, 1, 1),
        "k_cmp": col(0, ln(3)), "v_cmp": col(4, 8),
        "k_slc": col(0, ln(3), 0, ln(2)), "v_slc": col(1, 5, 3, 6),
        "k_win": col(0, 0, ln(4), 0), "v_win": col(2, 4, 6, 8),
        "gates": torch.tensor([0.5, 0.25, 0.125], dtype=F64).expand(4, 1, 3).clone(),
    }
    out, sel = nsa_attention(**inputs, cmp_block_size=2, cmp_stride=2, slc_block_size=2, num_selected=1,
                             window_size=2, num_init_blocks=0, num_local_blocks=0, scale=1.0,
                             return_selection=True)
    # t=0: cmp none -> 0; slc block 0, keys {0} -> 1; win {0} -> 2.      0.25*1 + 0.125*2            = 0.5
    # t=1: cmp block 0 -> 4; slc keys {0,1}, weights (1/4, 3/4) -> 4; win {0,1} equal -> 3
    #                                                                   0.5*4 + 0.25*4 + 0.125*3     = 3.375
    # t=2: cmp block 0 -> 4; block scores (1, 0) -> block 0, keys {0,1} -> 4; win {1,2} (1/5, 4/5) -> 5.6
    #                                                                   0.5*4 + 0.25*4 + 0.125*5.6   = 3.7
    # t=3: cmp (1/4, 3/4) -> 7; scores (1/4, 3/4) -> block 1, keys {2,3} (1/3, 2/3) -> 5;
    #      win {2,3} (4/5, 1/5) -> 6.4                                  0.5*7 + 0.25*5 + 0.125*6.4   = 5.55
    assert_close(out.detach().flatten(), torch.tensor([0.5, 3.375, 3.7, 5.55], dtype=F64), atol=1e-12, rtol=0)
    assert sel[:, 0].tolist() == [[True, False], [True, False], [True, False], [False, True]]


def test_hand_checked_overlap_weighted_block_scores():
    # l = 4, d = 2, l' = 4, T = 12, one head, q_t = 1, scale 1: compressed block i covers [2i, 2i+4) and
    # overlaps selection block j = 0, 1, 2 ([0,4), [4,8), [8,12)) by (4, 2, 0), ... positions, i.e. weights
    # overlap/d:  j=0: 2 p0 + p1;  j=1: p1 + 2 p2 + p3;  j=2: p3 + 2 p4 (+ p5, never visible here).
    # Compressed logits log(5, 1, 1, 1, 1.6) make p proportional to (5, 1, 1, 1, 1.6).
    ln = math.log
    col = lambda *xs: torch.tensor(xs, dtype=F64).view(-1, 1, 1)  # noqa: E731
    inputs = {
        "q": torch.ones(12, 1, 1, dtype=F64),
        "k_cmp": col(ln(5), 0, 0, 0, ln(1.6)), "v_cmp": col(9.6, 0, 0, 0, 0),
        "k_slc": torch.zeros(12, 1, 1, dtype=F64), "v_slc": torch.arange(12, dtype=F64).view(12, 1, 1),
        "k_win": torch.zeros(12, 1, 1, dtype=F64), "v_win": torch.zeros(12, 1, 1, dtype=F64),
        "gates": torch.tensor([1.0, 1.0, 0.0], dtype=F64).expand(12, 1, 3).clone(),
    }
    out, sel = nsa_attention(**inputs, cmp_block_size=4, cmp_stride=2, slc_block_size=4, num_selected=2,
                             window_size=1, num_init_blocks=0, num_local_blocks=0, scale=1.0,
                             return_selection=True)
    # t = 11: all five compressed blocks visible (2i + 3 <= 11); scores (11, 4, 4.2)/9.6 -> blocks {0, 2}
    # (an unweighted sum would give (6, 3, 2.6) -> {0, 1}).
    assert sel[11, 0].tolist() == [True, False, True]
    # t = 9: blocks 0..3 visible, p = (5, 1, 1, 1)/8; scores (11, 4, 1)/8 -> blocks {0, 1}
    assert sel[9, 0].tolist() == [True, True, False]
    # t = 11 output: cmp = sum p_i v_i = 5/9.6 * 9.6 = 5; slc = mean of positions {0..3, 8..11} = 44/8 = 5.5
    assert abs(out[11, 0, 0].item() - 10.5) < 1e-12
    # t = 9 output: cmp = 5/8 * 9.6 = 6; slc = mean of positions 0..7 = 3.5
    assert abs(out[9, 0, 0].item() - 9.5) < 1e-12


# ---------------------------------------------------------------- properties of the method


def test_causal():
    inputs = random_inputs(20, 4, 2, 3, 3, 4, 2, seed=1)
    with torch.no_grad():
        base = nsa_attention(**inputs, **KW)
        for cut in (0, 5, 6, 13):
            changed = {k: v.clone() for k, v in inputs.items()}
            for k in NAMES:
                if k in ("k_cmp", "v_cmp"):
                    # compressed block i ends at 2i + 3: it is "future" for positions < 2i + 3
                    first_future = (cut - 3) // 2 + 1 if cut >= 3 else 0
                    changed[k][first_future:] += 5.0 * torch.randn_like(changed[k][first_future:])
                else:
                    changed[k][cut + 1 :] += 5.0 * torch.randn_like(changed[k][cut + 1 :])
            changed["gates"] = changed["gates"].clamp(0, 1)
            out = nsa_attention(**changed, **KW)
            assert_close(out[: cut + 1], base[: cut + 1], atol=1e-12, rtol=0)
            assert (out[cut + 1 :] - base[cut + 1 :]).abs().max() > 1e-3


def test_window_branch_with_long_window_is_full_causal_attention():
    inputs = one_hot_gates(random_inputs(14, 4, 2, 3, 2, 4, 2, seed=2), branch=2)
    scale = 1 / math.sqrt(3)
    kw = {**KW, "window_size": 14}
    out = nsa_attention(**inputs, **kw)
    assert_close(out, causal_attention(inputs["q"], inputs["k_win"], inputs["v_win"], scale))
    kw = {**KW, "window_size": 3}
    out = nsa_attention(**inputs, **kw)
    assert_close(out, causal_attention(inputs["q"], inputs["k_win"], inputs["v_win"], scale, window=3))


def test_selection_of_every_block_is_full_causal_attention():
    inputs = one_hot_gates(random_inputs(14, 2, 1, 3, 2, 4, 2, seed=3), branch=1)
    kw = {**KW, "num_selected": 4, "scale": 0.5}  # 4 blocks of 4 cover the 14 tokens
    out = nsa_attention(**inputs, **kw)
    assert_close(out, causal_attention(inputs["q"], inputs["k_slc"], inputs["v_slc"], 0.5))


def test_compressed_branch_is_zero_before_first_complete_block():
    inputs = one_hot_gates(random_inputs(12, 2, 1, 3, 2, 4, 2, seed=4), branch=0)
    out = nsa_attention(**inputs, **KW)
    assert torch.count_nonzero(out[:3]) == 0  # block 0 = positions 0..3 completes at t = 3
    assert (out[3:].abs().amax(dim=(1, 2)) > 0).all()
    # at t = 3, exactly one block is visible: the output is its value
    assert_close(out[3], inputs["v_cmp"][0].expand(2, -1))


def test_gates_mix_the_branches_linearly():
    inputs = random_inputs(15, 4, 2, 3, 2, 4, 2, seed=5)
    with torch.no_grad():
        total = nsa_attention(**inputs, **KW)
        parts = [nsa_attention(**one_hot_gates(inputs, b), **KW) for b in range(3)]
    mixed = sum(inputs["gates"][..., b : b + 1] * parts[b] for b in range(3))
    assert_close(total, mixed)
    assert all(p.abs().max() > 0 for p in parts)


def test_shifting_all_keys_changes_nothing():
    # q . (k + c) = q . k + q . c: the same shift for every key of a query leaves each softmax unchanged
    inputs = random_inputs(16, 2, 1, 3, 3, 4, 2, seed=6)
    with torch.no_grad():
        base, sel = nsa_attention(**inputs, **KW, return_selection=True)
        shifted = dict(inputs)
        for k in ("k_cmp", "k_slc", "k_win"):
            shifted[k] = inputs[k] + torch.tensor([0.7, -1.3, 2.0], dtype=F64)
        out, sel2 = nsa_attention(**shifted, **KW, return_selection=True)
    assert torch.equal(sel, sel2)
    assert_close(out, base)


def test_query_heads_use_their_group_only():
    # with G groups the result equals running each group (its H/G query heads, its kv head) separately
    inputs = random_inputs(16, 6, 3, 3, 2, 4, 2, seed=7)
    kw = {**KW, "num_selected": 2, "num_local_blocks": 0}
    with torch.no_grad():
        full, sel = nsa_attention(**inputs, **kw, return_selection=True)
        for g in range(3):
            part = {k: (v[:, 2 * g : 2 * g + 2] if k in ("q", "gates") else v[:, g : g + 1]) for k, v in inputs.items()}
            out, sel_g = nsa_attention(**part, **kw, return_selection=True)
            assert_close(out, full[:, 2 * g : 2 * g + 2])
            assert torch.equal(sel_g[:, 0], sel[:, g])


def test_selection_mask_respects_forced_blocks_budget_and_causality():
    seq_len, lp = 26, 2
    inputs = random_inputs(seq_len, 4, 2, 3, 2, 4, 2, seed=8)
    kw = {**KW, "slc_block_size": lp, "num_selected": 5, "num_init_blocks": 2, "num_local_blocks": 2}
    with torch.no_grad():
        _, sel = nsa_attention(**inputs, **kw, return_selection=True)
    assert sel.shape == (seq_len, 2, 13)
    for t in range(seq_len):
        current = t // lp
        forced = {0, 1, current, current - 1} & set(range(current + 1))
        for g in range(2):
            chosen = set(torch.nonzero(sel[t, g]).flatten().tolist())
            assert forced <= chosen, (t, g)
            assert max(chosen) <= current, "a future block was selected"
            assert len(chosen) == min(current + 1, 5), (t, g, chosen)


def test_no_gradient_flows_through_block_selection():
    # selection is a discrete top-n: with the compressed gate off, compressed keys/values get no gradient
    inputs = one_hot_gates(random_inputs(16, 2, 1, 3, 3, 4, 2, seed=9), branch=1)
    leaf = {k: v.clone().requires_grad_(True) for k, v in inputs.items()}
    out = nsa_attention(**leaf, **KW)
    grads = torch.autograd.grad(out.square().sum(), [leaf["k_cmp"], leaf["q"], leaf["k_slc"]], allow_unused=True)
    assert grads[0] is None or torch.count_nonzero(grads[0]) == 0
    assert grads[1] is not None and grads[1].abs().max() > 0
    assert grads[2] is not None and grads[2].abs().max() > 0


def test_extreme_logits_stay_finite():
    inputs = random_inputs(16, 2, 1, 4, 3, 4, 2, seed=10, q_mult=1e4)
    with torch.no_grad():
        out = nsa_attention(**inputs, **KW)
    assert torch.isfinite(out).all()
