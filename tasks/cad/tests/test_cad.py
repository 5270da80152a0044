"""Hidden tests for cad/1: `cad_log_probs` and `cad_generate` in cad/decoding.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from cad.decoding import cad_generate, cad_log_probs, generate
from cad.model import LMConfig, TinyCausalLM

FIXTURES = Path(__file__).parent / "fixtures"
DIST_CASES = torch.load(FIXTURES / "cad_distribution_cases.pt", weights_only=True)
GEN = torch.load(FIXTURES / "cad_generation.pt", weights_only=True)
RUNS = {r["name"]: r for r in GEN["runs"]}
FIRST_STEP = torch.load(FIXTURES / "cad_first_step.pt", weights_only=True)
ATOL, RTOL = 1e-10, 1e-8


def load_model() -> TinyCausalLM:
    blob = torch.load(FIXTURES / "cad_model.pt", weights_only=True)
    model = TinyCausalLM(LMConfig(**blob["config"]))
    model.load_state_dict(blob["state_dict"])
    return model.double().eval()


MODEL = load_model()


def rand(seed: int, *shape: int, scale: float = 2.0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * scale


def run(name: str, **override):
    r = RUNS[name]
    kw = dict(r["kwargs"], **override)
    gen = torch.Generator().manual_seed(r["seed"]) if r["seed"] is not None else None
    return cad_generate(MODEL, r["context"], r["query"], generator=gen, **kw)


# --------------------------------------------------------------------------- the distribution


@pytest.mark.parametrize("idx", range(len(DIST_CASES)))
def test_log_probs_match_reference(idx: int) -> None:
    case = DIST_CASES[idx]
    out = cad_log_probs(case["with_ctx"], case["without_ctx"], case["alpha"])
    assert out.shape == case["log_probs"].shape and out.dtype == torch.float64
    torch.testing.assert_close(out, case["log_probs"], atol=ATOL, rtol=RTOL)


def test_hand_computed_distribution() -> None:
    # logits with context [2, 0, 0], without context [1, 1, 0].
    # alpha = 1: 2*[2,0,0] - [1,1,0] = [3, -1, 0]; log Z = ln(e^3 + e^-1 + 1) = 3.0658839037574293
    #   -> log-probs [3 - logZ, -1 - logZ, -logZ].
    # alpha = 0.5: 1.5*[2,0,0] - 0.5*[1,1,0] = [2.5, -0.5, 0]; log Z = ln(e^2.5 + e^-0.5 + 1) = 2.6238729583693674.
    lc = torch.tensor([2.0, 0.0, 0.0], dtype=torch.float64)
    lq = torch.tensor([1.0, 1.0, 0.0], dtype=torch.float64)
    torch.testing.assert_close(
        cad_log_probs(lc, lq, 1.0),
        torch.tensor([-0.06588390375742925, -4.065883903757429, -3.0658839037574293], dtype=torch.float64),
        atol=1e-12, rtol=0)
    torch.testing.assert_close(
        cad_log_probs(lc, lq, 0.5),
        torch.tensor([-0.1238729583693674, -3.1238729583693674, -2.6238729583693674], dtype=torch.float64),
        atol=1e-12, rtol=0)


def test_normalised_and_invariant_to_logit_shifts() -> None:
    lc, lq = rand(1, 5, 30), rand(2, 5, 30)
    out = cad_log_probs(lc, lq, 0.7)
    torch.testing.assert_close(out.logsumexp(-1), torch.zeros(5, dtype=torch.float64), atol=1e-12, rtol=0)
    shifted = cad_log_probs(lc + rand(3, 5, 1, scale=40.0), lq - rand(4, 5, 1, scale=40.0), 0.7)
    torch.testing.assert_close(shifted, out, atol=1e-9, rtol=1e-9)


def test_alpha_zero_and_uninformative_context_give_plain_decoding() -> None:
    lc, lq = rand(5, 4, 12), rand(6, 4, 12)
    torch.testing.assert_close(cad_log_probs(lc, lq, 0.0), lc.log_softmax(-1), atol=1e-12, rtol=0)
    for alpha in (0.5, 1.0, 4.0):
        torch.testing.assert_close(cad_log_probs(lc, lc.clone(), alpha), lc.log_softmax(-1), atol=1e-10, rtol=0)


def test_log_odds_follow_the_contrast() -> None:
    # log p(a) - log p(b) = (1 + alpha)(lc_a - lc_b) - alpha (lq_a - lq_b): the context's effect is amplified.
    lc, lq = rand(7, 3, 9), rand(8, 3, 9)
    alpha = 1.3
    out = cad_log_probs(lc, lq, alpha)
    expected = (1 + alpha) * (lc[:, 1:] - lc[:, :1]) - alpha * (lq[:, 1:] - lq[:, :1])
    torch.testing.assert_close(out[:, 1:] - out[:, :1], expected, atol=1e-10, rtol=1e-10)


def test_float32_and_leading_dims() -> None:
    lc, lq = rand(9, 2, 3, 7).float(), rand(10, 2, 3, 7).float()
    out = cad_log_probs(lc, lq, 0.5)
    assert out.dtype == torch.float32 and out.shape == (2, 3, 7)
    torch.testing.assert_close(out, cad_log_probs(lc.double(), lq.double(), 0.5).float(), atol=1e-5, rtol=1e-5)


# --------------------------------------------------------------------------- the decoding loop


@pytest.mark.parametrize("name", list(RUNS))
def test_generation_matches_reference(name: str) -> None:
    out = run(name)
    ref = RUNS[name]
    assert out.tokens.shape == ref["tokens"].shape, name
    assert out.tokens.tolist() == ref["tokens"].tolist(), name
    torch.testing.assert_close(out.token_logprobs, ref["token_logprobs"], atol=1e-9, rtol=1e-8)


def test_alpha_zero_is_plain_decoding_with_context() -> None:
    r = RUNS["greedy"]
    out = cad_generate(MODEL, r["context"], r["query"], 8, alpha=0.0)
    plain = generate(MODEL, torch.cat([r["context"], r["query"]], dim=1), 8)
    assert out.tokens.tolist() == plain.tokens.tolist()
    torch.testing.assert_close(out.token_logprobs, plain.token_logprobs, atol=1e-10, rtol=0)


def test_empty_context_is_plain_decoding_for_any_alpha() -> None:
    r = RUNS["greedy"]
    empty = r["context"][:, :0]
    plain = generate(MODEL, r["query"], 7)
    for alpha in (0.5, 2.0):
        out = cad_generate(MODEL, empty, r["query"], 7, alpha=alpha)
        assert out.tokens.tolist() == plain.tokens.tolist()
        torch.testing.assert_close(out.token_logprobs, plain.token_logprobs, atol=1e-9, rtol=0)


def test_both_branches_condition_on_the_generated_tokens() -> None:
    # Teacher-force the generated tokens through both branches and recompute every step's CAD log-prob.
    r = RUNS["greedy_alpha1"]
    out = run("greedy_alpha1")
    ctx, qry, toks = r["context"], r["query"], out.tokens
    with torch.no_grad():
        full = MODEL(torch.cat([ctx, qry, toks], dim=1))
        bare = MODEL(torch.cat([qry, toks], dim=1))
    n_ctx, n_q, steps = ctx.shape[1], qry.shape[1], toks.shape[1]
    for t in range(steps):
        lp = cad_log_probs(full[:, n_ctx + n_q - 1 + t], bare[:, n_q - 1 + t], 1.0)
        assert torch.equal(lp.argmax(-1), toks[:, t]), f"step {t}"
        torch.testing.assert_close(out.token_logprobs[:, t], lp.gather(-1, toks[:, t:t + 1]).squeeze(-1),
                                   atol=1e-9, rtol=0)


def test_eos_handling() -> None:
    ref = RUNS["greedy_eos"]
    eos, pad = ref["kwargs"]["eos_token_id"], ref["kwargs"]["pad_token_id"]
    out = run("greedy_eos")
    for row_t, row_lp in zip(out.tokens.tolist(), out.token_logprobs.tolist()):
        if eos in row_t:
            k = row_t.index(eos)
            assert row_lp[k] < 0.0, "the EOS token itself keeps its log-prob"
            assert all(t == pad for t in row_t[k + 1:]) and all(v == 0.0 for v in row_lp[k + 1:])
        else:
            assert all(v < 0.0 for v in row_lp)
    assert any(eos in row[:-1] for row in out.tokens.tolist()), "fixture should finish a row early"
    single = run("greedy_eos_single")
    assert single.tokens.shape[1] < ref["kwargs"]["max_new_tokens"] and single.tokens[0, -1].item() == eos


def test_zero_new_tokens() -> None:
    r = RUNS["greedy"]
    out = cad_generate(MODEL, r["context"], r["query"], 0, alpha=0.5)
    assert out.tokens.shape == (4, 0) and out.token_logprobs.shape == (4, 0)


def first_token_frequencies(n: int, temperature: float, seed: int) -> torch.Tensor:
    ctx = FIRST_STEP["context"].expand(n, -1)
    qry = FIRST_STEP["query"].expand(n, -1)
    out = cad_generate(MODEL, ctx, qry, 1, alpha=FIRST_STEP["alpha"], do_sample=True, temperature=temperature,
                       generator=torch.Generator().manual_seed(seed))
    return torch.bincount(out.tokens[:, 0], minlength=FIRST_STEP["log_probs"].numel()).double() / n


def test_samples_follow_the_cad_distribution() -> None:
    # 6000 draws: the standard error of each frequency is below 0.0055, so 0.03 is a > 5 sigma margin.
    freq = first_token_frequencies(6000, 1.0, 2024)
    assert (freq - FIRST_STEP["log_probs"].exp()).abs().max() < 0.03


def test_temperature_rescales_the_cad_log_probs() -> None:
    freq = first_token_frequencies(6000, 0.5, 2025)
    target = torch.softmax(FIRST_STEP["log_probs"] / 0.5, dim=-1)
    assert (freq - target).abs().max() < 0.03
