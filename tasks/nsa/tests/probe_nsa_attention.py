"""Probe for nsa/1: nsa_attention (naive Native Sparse Attention for one sequence). Runs in the sandbox;
emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_nsa_attention.py add hand-checked values, plain causal attention and the method's properties."""

import math
from pathlib import Path

import torch

from lmrbench_probe import case
from nsa.attention import nsa_attention

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "nsa_cases.pt", weights_only=True)
NAMES = ["q", "k_cmp", "v_cmp", "k_slc", "v_slc", "k_win", "v_win", "gates"]
F64 = torch.float64
TOL = dict(rtol=1e-7, atol=1e-9, outputs={"*sel*": {"compare": "exact"}})


def tensor(x):
    """The candidate's value if it is a tensor, else a NaN scalar that fails every comparison (the harness
    cannot compare None or another object with the reference's array)."""
    return x if isinstance(x, torch.Tensor) else torch.tensor(float("nan"))


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


def with_selection(**kwargs):
    """(output, selection) of a call with return_selection=True."""
    out, sel = nsa_attention(**kwargs, return_selection=True)
    return tensor(out).detach(), tensor(sel)


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(CASES)), **TOL)
def output_selection_and_gradients_match_reference(idx):
    c = CASES[idx]
    out, selection = with_selection(**c["inputs"], **c["kwargs"])
    leaf = {k: v.clone().requires_grad_(True) for k, v in c["inputs"].items()}
    again = nsa_attention(**leaf, **c["kwargs"])
    grads = torch.autograd.grad((again * c["cotangent"]).sum(), [leaf[k] for k in NAMES], allow_unused=True)
    return {"output": out, "selection": selection.cpu(),
            "grads": {name: torch.zeros_like(leaf[name]) if g is None else g for name, g in zip(NAMES, grads)}}


@case(**TOL)
def default_return_is_output_only():
    c = CASES[0]
    out = nsa_attention(**c["inputs"], **c["kwargs"])
    return {"is_tensor": isinstance(out, torch.Tensor), "output": tensor(out).detach()}


# ---------------------------------------------------------------- values checked by hand (check file)


def col(*xs):
    return torch.tensor(xs, dtype=F64).view(-1, 1, 1)


@case(rtol=0, atol=1e-12, outputs={"*sel*": {"compare": "exact"}})
def hand_checked_small_sequence():
    ln = math.log
    inputs = {
        "q": col(1, 1, 1, 1),
        "k_cmp": col(0, ln(3)), "v_cmp": col(4, 8),
        "k_slc": col(0, ln(3), 0, ln(2)), "v_slc": col(1, 5, 3, 6),
        "k_win": col(0, 0, ln(4), 0), "v_win": col(2, 4, 6, 8),
        "gates": torch.tensor([0.5, 0.25, 0.125], dtype=F64).expand(4, 1, 3).clone(),
    }
    out, sel = with_selection(**inputs, cmp_block_size=2, cmp_stride=2, slc_block_size=2, num_selected=1,
                              window_size=2, num_init_blocks=0, num_local_blocks=0, scale=1.0)
    return {"output": out.flatten(), "sel_head0": sel[:, 0]}


@case(rtol=0, atol=1e-12, outputs={"*sel*": {"compare": "exact"}})
def hand_checked_overlap_weighted_block_scores():
    ln = math.log
    inputs = {
        "q": torch.ones(12, 1, 1, dtype=F64),
        "k_cmp": col(ln(5), 0, 0, 0, ln(1.6)), "v_cmp": col(9.6, 0, 0, 0, 0),
        "k_slc": torch.zeros(12, 1, 1, dtype=F64), "v_slc": torch.arange(12, dtype=F64).view(12, 1, 1),
        "k_win": torch.zeros(12, 1, 1, dtype=F64), "v_win": torch.zeros(12, 1, 1, dtype=F64),
        "gates": torch.tensor([1.0, 1.0, 0.0], dtype=F64).expand(12, 1, 3).clone(),
    }
    out, sel = with_selection(**inputs, cmp_block_size=4, cmp_stride=2, slc_block_size=4, num_selected=2,
                              window_size=1, num_init_blocks=0, num_local_blocks=0, scale=1.0)
    return {"sel_t11": sel[11, 0], "sel_t9": sel[9, 0], "out_t11": out[11, 0, 0], "out_t9": out[9, 0, 0]}


# ---------------------------------------------------------------- properties of the method (check file)


@case(**TOL)
def causal():
    inputs = random_inputs(20, 4, 2, 3, 3, 4, 2, seed=1)
    gen = torch.Generator().manual_seed(11)  # the perturbations (the old test drew them unseeded)
    out = {}
    with torch.no_grad():
        out["base"] = tensor(nsa_attention(**inputs, **KW))
        for cut in (0, 5, 6, 13):
            changed = {k: v.clone() for k, v in inputs.items()}
            for k in NAMES:
                if k in ("k_cmp", "v_cmp"):
                    # compressed block i ends at 2i + 3: it is "future" for positions < 2i + 3
                    first_future = (cut - 3) // 2 + 1 if cut >= 3 else 0
                    rest = changed[k][first_future:]
                else:
                    rest = changed[k][cut + 1 :]
                rest += 5.0 * torch.randn(rest.shape, generator=gen, dtype=F64)
            changed["gates"] = changed["gates"].clamp(0, 1)
            out[f"cut{cut}"] = tensor(nsa_attention(**changed, **KW))
    return out


@case(**TOL)
def window_branch_with_long_window_is_full_causal_attention():
    inputs = one_hot_gates(random_inputs(14, 4, 2, 3, 2, 4, 2, seed=2), branch=2)
    return {"q": inputs["q"], "k_win": inputs["k_win"], "v_win": inputs["v_win"],
            "window14": tensor(nsa_attention(**inputs, **{**KW, "window_size": 14})).detach(),
            "window3": tensor(nsa_attention(**inputs, **{**KW, "window_size": 3})).detach()}


@case(**TOL)
def selection_of_every_block_is_full_causal_attention():
    inputs = one_hot_gates(random_inputs(14, 2, 1, 3, 2, 4, 2, seed=3), branch=1)
    kw = {**KW, "num_selected": 4, "scale": 0.5}  # 4 blocks of 4 cover the 14 tokens
    return {"q": inputs["q"], "k_slc": inputs["k_slc"], "v_slc": inputs["v_slc"],
            "output": tensor(nsa_attention(**inputs, **kw)).detach()}


@case(**TOL)
def compressed_branch_is_zero_before_first_complete_block():
    inputs = one_hot_gates(random_inputs(12, 2, 1, 3, 2, 4, 2, seed=4), branch=0)
    return {"v_cmp": inputs["v_cmp"], "output": tensor(nsa_attention(**inputs, **KW)).detach()}


@case(**TOL)
def gates_mix_the_branches_linearly():
    inputs = random_inputs(15, 4, 2, 3, 2, 4, 2, seed=5)
    with torch.no_grad():
        total = tensor(nsa_attention(**inputs, **KW))
        parts = [tensor(nsa_attention(**one_hot_gates(inputs, b), **KW)) for b in range(3)]
    return {"gates": inputs["gates"], "total": total, "parts": parts}


@case(**TOL)
def shifting_all_keys_changes_nothing():
    inputs = random_inputs(16, 2, 1, 3, 3, 4, 2, seed=6)
    with torch.no_grad():
        base, sel = with_selection(**inputs, **KW)
        shifted = dict(inputs)
        for k in ("k_cmp", "k_slc", "k_win"):
            shifted[k] = inputs[k] + torch.tensor([0.7, -1.3, 2.0], dtype=F64)
        out, sel2 = with_selection(**shifted, **KW)
    return {"base": base, "base_sel": sel, "shifted": out, "shifted_sel": sel2}


@case(**TOL)
def query_heads_use_their_group_only():
    inputs = random_inputs(16, 6, 3, 3, 2, 4, 2, seed=7)
    kw = {**KW, "num_selected": 2, "num_local_blocks": 0}
    out = {}
    with torch.no_grad():
        out["full"], out["full_sel"] = with_selection(**inputs, **kw)
        for g in range(3):
            part = {k: (v[:, 2 * g : 2 * g + 2] if k in ("q", "gates") else v[:, g : g + 1]) for k, v in inputs.items()}
            out[f"group{g}"], out[f"group{g}_sel"] = with_selection(**part, **kw)
    return out


@case(**TOL)
def selection_mask_respects_forced_blocks_budget_and_causality():
    inputs = random_inputs(26, 4, 2, 3, 2, 4, 2, seed=8)
    kw = {**KW, "slc_block_size": 2, "num_selected": 5, "num_init_blocks": 2, "num_local_blocks": 2}
    with torch.no_grad():
        _, sel = with_selection(**inputs, **kw)
    return {"sel": sel}


@case(rtol=1e-7, atol=1e-9, outputs={"k_cmp.*": {"compare": "none"}})  # None or zeros: the check decides
def no_gradient_flows_through_block_selection():
    inputs = one_hot_gates(random_inputs(16, 2, 1, 3, 3, 4, 2, seed=9), branch=1)
    leaf = {k: v.clone().requires_grad_(True) for k, v in inputs.items()}
    out = nsa_attention(**leaf, **KW)
    grads = torch.autograd.grad(out.square().sum(), [leaf["k_cmp"], leaf["q"], leaf["k_slc"]], allow_unused=True)
    emitted = {}
    for name, g in zip(("k_cmp", "q", "k_slc"), grads):
        emitted[f"{name}.is_none"] = g is None
        emitted[f"{name}.grad"] = torch.zeros_like(leaf[name]) if g is None else g
    return emitted


@case(**TOL)
def extreme_logits_stay_finite():
    inputs = random_inputs(16, 2, 1, 4, 3, 4, 2, seed=10, q_mult=1e4)
    with torch.no_grad():
        return {"output": tensor(nsa_attention(**inputs, **KW))}
