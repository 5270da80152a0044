"""Hidden tests for dola/1: `dola_step` in dola/contrast.py (and greedy DoLa decoding built on it)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from dola.contrast import dola_step
from dola.generate import dola_generate, greedy_generate
from dola.model import EarlyExitLM, TinyLMConfig

FIXTURES = Path(__file__).parent / "fixtures"
STEP_CASES = torch.load(FIXTURES / "dola_step_cases.pt", weights_only=True)
GENERATION = torch.load(FIXTURES / "dola_generation.pt", weights_only=True)
ATOL, RTOL = 1e-9, 1e-7
LN2 = math.log(2.0)


def run(logits: torch.Tensor, candidates, mature: int, alpha: float):
    return dola_step({j: logits[j] for j in range(logits.shape[0])}, candidates, mature, alpha)


def assert_scores_equal(actual: torch.Tensor, expected: torch.Tensor) -> None:
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    finite = torch.isfinite(expected)
    assert torch.equal(torch.isfinite(actual), finite), "the set of finite scores differs"
    assert torch.all(actual[~finite] == float("-inf")), "excluded tokens must score exactly -inf"
    torch.testing.assert_close(actual[finite], expected[finite], atol=ATOL, rtol=RTOL)


def random_layers(seed: int, n_layers: int, batch: int, vocab: int, scale: float = 3.0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n_layers + 1, batch, vocab, generator=gen, dtype=torch.float64) * scale


# --------------------------------------------------------------------------- differential


@pytest.mark.parametrize("idx", range(len(STEP_CASES)))
def test_matches_reference(idx: int) -> None:
    case = STEP_CASES[idx]
    res = run(case["logits"], case["candidate_layers"], case["mature_layer"], case["alpha"])
    batch = case["logits"].shape[1]
    assert res.jsd.shape == (batch, len(case["candidate_layers"]))
    torch.testing.assert_close(res.jsd, case["jsd"], atol=ATOL, rtol=RTOL)
    assert res.premature_layer.dtype == torch.long
    assert torch.equal(res.premature_layer, case["premature_layer"])
    assert res.plausible.dtype == torch.bool
    assert torch.equal(res.plausible, case["plausible"])
    assert_scores_equal(res.scores, case["scores"])


def test_extreme_logits_stay_finite() -> None:
    # The last two fixture cases have logit gaps of hundreds of nats (probabilities underflow to 0).
    for case in STEP_CASES[-2:]:
        res = run(case["logits"], case["candidate_layers"], case["mature_layer"], case["alpha"])
        assert torch.isfinite(res.jsd).all()
        assert torch.isfinite(res.scores[res.plausible]).all()
        assert (res.jsd >= -1e-12).all() and (res.jsd <= LN2 + 1e-12).all()


# --------------------------------------------------------------------------- by hand


def test_hand_computed_step() -> None:
    # Mature layer 4: q_N = [0.5, 0.4, 0.1]. Row 0: layer 1 has q = [0.6, 0.1, 0.3], layer 3 equals q_N.
    # Row 1: the two candidates swap roles. alpha = 0.25 -> threshold 0.25 * 0.5 = 0.125 keeps tokens 0, 1.
    # JSD(q_N, q): m = [0.55, 0.25, 0.2];
    #   KL(q_N||m) = .5 ln(.5/.55) + .4 ln(.4/.25) + .1 ln(.1/.2) = 0.0710317...
    #   KL(q||m)   = .6 ln(.6/.55) + .1 ln(.1/.25) + .3 ln(.3/.2) = 0.0822172...
    #   JSD = (0.0710317 + 0.0822172) / 2 = 0.07662446458947444;  JSD(q_N, q_N) = 0.
    # Scores on the kept tokens: ln(.5/.6) = -0.1823215567939546, ln(.4/.1) = ln 4 = 1.3862943611198906.
    p = torch.tensor([0.5, 0.4, 0.1], dtype=torch.float64).log()
    q = torch.tensor([0.6, 0.1, 0.3], dtype=torch.float64).log()
    logits = {4: torch.stack([p, p]), 1: torch.stack([q, p]), 3: torch.stack([p, q]),
              2: torch.zeros(2, 3, dtype=torch.float64)}  # layer 2 is not a candidate: ignored
    res = dola_step(logits, [1, 3], 4, alpha=0.25)
    jsd_pq = 0.07662446458947444
    torch.testing.assert_close(res.jsd, torch.tensor([[jsd_pq, 0.0], [0.0, jsd_pq]], dtype=torch.float64),
                               atol=1e-12, rtol=1e-10)
    assert res.premature_layer.tolist() == [1, 3]
    assert res.plausible.tolist() == [[True, True, False], [True, True, False]]
    expected = torch.tensor([-0.1823215567939546, 1.3862943611198906, float("-inf")], dtype=torch.float64)
    assert_scores_equal(res.scores, torch.stack([expected, expected]))
    # Greedy decoding would emit token 0; DoLa emits token 1.
    assert res.scores.argmax(dim=-1).tolist() == [1, 1]


def test_disjoint_supports_give_ln2() -> None:
    # One-hot-like distributions on different tokens: JSD = ln 2 (its maximum); same token: JSD = 0.
    final = torch.tensor([[1000.0, 0.0, 0.0]], dtype=torch.float64)
    other = torch.tensor([[0.0, 1000.0, 0.0]], dtype=torch.float64)
    res = dola_step({2: final, 0: other, 1: final.clone()}, [0, 1], 2, alpha=0.1)
    torch.testing.assert_close(res.jsd, torch.tensor([[LN2, 0.0]], dtype=torch.float64), atol=1e-12, rtol=0)
    assert res.premature_layer.tolist() == [0]
    assert res.plausible.tolist() == [[True, False, False]]
    # log q_N(0) - log q_0(0) = 0 - (-1000) = 1000.
    torch.testing.assert_close(res.scores[0, 0], torch.tensor(1000.0, dtype=torch.float64), atol=1e-9, rtol=0)


# --------------------------------------------------------------------------- properties


def test_invariant_to_per_row_logit_shifts() -> None:
    logits = random_layers(11, 5, 6, 17)
    shift = random_layers(12, 5, 6, 1, scale=50.0)  # one constant per layer and row
    a = run(logits, [0, 1, 2, 3, 4], 5, 0.1)
    b = run(logits + shift, [0, 1, 2, 3, 4], 5, 0.1)
    assert torch.equal(a.premature_layer, b.premature_layer)
    assert torch.equal(a.plausible, b.plausible)
    torch.testing.assert_close(b.jsd, a.jsd, atol=1e-9, rtol=1e-7)
    assert_scores_equal(b.scores, a.scores)


def test_alpha_one_keeps_only_the_maximisers() -> None:
    logits = random_layers(21, 3, 5, 9)
    logits[3, 0, 4] = logits[3, 0, 2] = logits[3, 0].max() + 1.0  # row 0: two tokens tie for the max
    res = run(logits, [0, 1, 2], 3, 1.0)
    top = logits[3].argmax(dim=-1)
    assert res.plausible[0].nonzero().flatten().tolist() == [2, 4]
    for b in range(1, 5):
        assert res.plausible[b].nonzero().flatten().tolist() == [top[b].item()]
    assert torch.isfinite(res.scores).sum().item() == 6


def test_alpha_zero_keeps_every_token() -> None:
    logits = random_layers(22, 3, 4, 9, scale=200.0)
    res = run(logits, [0, 2], 3, 0.0)
    assert res.plausible.all()
    assert torch.isfinite(res.scores).all()


def test_threshold_is_relative_to_the_mature_maximum() -> None:
    # q_N = softmax(log[8, 4, 2, 1]) = [8, 4, 2, 1] / 15; alpha = 0.3 keeps q >= 0.3 * 8/15 -> tokens 0, 1.
    # (alpha = 0.3 on the raw probabilities, or on the premature layer, would keep a different set.)
    final = torch.tensor([[8.0, 4.0, 2.0, 1.0]], dtype=torch.float64).log()
    prem = torch.tensor([[1.0, 1.0, 1.0, 20.0]], dtype=torch.float64).log()
    res = dola_step({1: final, 0: prem}, [0], 1, alpha=0.3)
    assert res.plausible.tolist() == [[True, True, False, False]]
    # Scores: ln(8/15) - ln(1/23) = ln(184/15), ln(4/15) - ln(1/23) = ln(92/15).
    expected = torch.tensor([[math.log(184 / 15), math.log(92 / 15), -math.inf, -math.inf]], dtype=torch.float64)
    assert_scores_equal(res.scores, expected)


def test_each_row_selects_its_own_layer() -> None:
    gen = torch.Generator().manual_seed(5)
    final = torch.randn(3, 10, generator=gen, dtype=torch.float64)
    near = final + 0.05 * torch.randn(3, 10, generator=gen, dtype=torch.float64)
    far = -2.0 * final
    # Row r has its far layer at candidate position r.
    layer = {3: final}
    for j in range(3):
        layer[j] = torch.stack([far[r] if r == j else near[r] for r in range(3)])
    res = dola_step(layer, [0, 1, 2], 3, 0.1)
    assert res.premature_layer.tolist() == [0, 1, 2]
    for r in range(3):
        expected = final.log_softmax(-1)[r] - far.log_softmax(-1)[r]
        kept = res.plausible[r]
        torch.testing.assert_close(res.scores[r, kept], expected[kept], atol=1e-10, rtol=1e-8)


def test_candidate_order_only_permutes_jsd() -> None:
    logits = random_layers(31, 6, 7, 12)
    a = run(logits, [0, 1, 2, 3, 4, 5], 6, 0.1)
    order = [4, 0, 5, 2, 1, 3]
    b = run(logits, order, 6, 0.1)
    assert torch.equal(a.premature_layer, b.premature_layer)
    torch.testing.assert_close(b.jsd, a.jsd[:, order], atol=1e-12, rtol=0)
    assert_scores_equal(b.scores, a.scores)


def test_exact_tie_goes_to_first_listed_candidate() -> None:
    logits = random_layers(41, 4, 3, 8)
    logits[1] = -3.0 * logits[4]  # far from the mature layer 4 ...
    logits[3] = logits[1].clone()  # ... and layer 3 identical to layer 1: an exact tie for the maximum
    assert run(logits, [1, 0, 3], 4, 0.1).premature_layer.tolist() == [1, 1, 1]
    assert run(logits, [3, 0, 1], 4, 0.1).premature_layer.tolist() == [3, 3, 3]


def test_single_candidate_is_static_dola() -> None:
    logits = random_layers(51, 3, 4, 10)
    res = run(logits, [1], 3, 0.2)
    assert res.premature_layer.tolist() == [1, 1, 1, 1]
    expected = logits[3].log_softmax(-1) - logits[1].log_softmax(-1)
    torch.testing.assert_close(res.scores[res.plausible], expected[res.plausible], atol=1e-10, rtol=1e-8)


def test_jsd_is_symmetric_and_bounded() -> None:
    logits = random_layers(61, 1, 6, 15)
    ab = run(logits, [0], 1, 0.1).jsd
    ba = run(logits.flip(0), [0], 1, 0.1).jsd
    torch.testing.assert_close(ab, ba, atol=1e-12, rtol=1e-10)
    assert (ab > 0).all() and (ab < LN2).all()


def test_float32_input_keeps_dtype() -> None:
    logits = random_layers(71, 3, 2, 6).float()
    res = run(logits, [0, 1], 3, 0.1)
    assert res.scores.dtype == torch.float32 and res.jsd.dtype == torch.float32
    ref = run(logits.double(), [0, 1], 3, 0.1)
    assert torch.equal(res.premature_layer, ref.premature_layer)
    torch.testing.assert_close(res.jsd, ref.jsd.float(), atol=1e-5, rtol=1e-4)


# --------------------------------------------------------------------------- decoding


def load_model() -> EarlyExitLM:
    model = EarlyExitLM(TinyLMConfig(**GENERATION["config"]))
    model.load_state_dict(GENERATION["state_dict"])
    return model.to(torch.float64).eval()


def test_greedy_dola_decoding_matches_reference() -> None:
    model = load_model()
    for run_ in GENERATION["runs"]:
        out = dola_generate(model, GENERATION["prompts"], 10, run_["candidate_layers"], alpha=run_["alpha"])
        assert out.tokens.tolist() == run_["tokens"].tolist(), run_["candidate_layers"]
        assert out.premature_layers.tolist() == run_["premature_layers"].tolist(), run_["candidate_layers"]


def test_alpha_one_reduces_to_greedy_decoding() -> None:
    model = load_model()
    prompts = GENERATION["prompts"]
    out = dola_generate(model, prompts, 8, [0, 2, 4], alpha=1.0)
    assert out.tokens.tolist() == greedy_generate(model, prompts, 8).tolist()
