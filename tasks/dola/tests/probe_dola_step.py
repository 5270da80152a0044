"""Probe for dola/1: `dola_step` in dola/contrast.py (and greedy DoLa decoding built on it). Runs in the
sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_dola_step.py add hand-checked values and the paper's properties."""

from __future__ import annotations

from pathlib import Path

import torch
from dola.contrast import dola_step
from dola.generate import dola_generate, greedy_generate
from dola.model import EarlyExitLM, TinyLMConfig
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
STEP_CASES = torch.load(FIXTURES / "dola_step_cases.pt", weights_only=True)
GENERATION = torch.load(FIXTURES / "dola_generation.pt", weights_only=True)
# the old tests' tolerance for float64 step outputs; layer indices and masks are compared exactly
F64 = dict(rtol=1e-7, atol=1e-9, outputs={"*premature*": {"compare": "exact"}, "*plausible*": {"compare": "exact"}})


def run(logits: torch.Tensor, candidates, mature: int, alpha: float):
    return dola_step({j: logits[j] for j in range(logits.shape[0])}, candidates, mature, alpha)


def only_tensors(out: dict) -> dict:
    """Outputs that should be tensors but are not are left out (recorded under `not_a_tensor.<key>`), so they
    fail as missing outputs: the harness's comparison of an array with a list or None raises instead."""
    kept = {k: v for k, v in out.items() if isinstance(v, torch.Tensor)}
    return {**kept, **{f"not_a_tensor.{k}": type(v).__name__ for k, v in out.items() if k not in kept}}


def step_outputs(res) -> dict:
    return only_tensors({"jsd": res.jsd, "premature_layer": res.premature_layer, "plausible": res.plausible,
                         "scores": res.scores})


def random_layers(seed: int, n_layers: int, batch: int, vocab: int, scale: float = 3.0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n_layers + 1, batch, vocab, generator=gen, dtype=torch.float64) * scale


def case_id(i: int) -> str:
    c = STEP_CASES[i]
    n_layers, batch, vocab = c["logits"].shape
    return f"{i}-L{n_layers}-b{batch}-v{vocab}-c{len(c['candidate_layers'])}-a{c['alpha']}"


# --------------------------------------------------------------------------- differential


@case(params=range(len(STEP_CASES)), ids=[case_id(i) for i in range(len(STEP_CASES))], **F64)
def matches_reference(i: int):
    c = STEP_CASES[i]
    return step_outputs(run(c["logits"], c["candidate_layers"], c["mature_layer"], c["alpha"]))


# --------------------------------------------------------------------------- by hand (check file)


@case(**F64)
def hand_computed_step():
    p = torch.tensor([0.5, 0.4, 0.1], dtype=torch.float64).log()
    q = torch.tensor([0.6, 0.1, 0.3], dtype=torch.float64).log()
    logits = {4: torch.stack([p, p]), 1: torch.stack([q, p]), 3: torch.stack([p, q]),
              2: torch.zeros(2, 3, dtype=torch.float64)}  # layer 2 is not a candidate: ignored
    res = dola_step(logits, [1, 3], 4, alpha=0.25)
    return {**step_outputs(res), "argmax": res.scores.argmax(dim=-1)}


@case(**F64)
def disjoint_supports_give_ln2():
    final = torch.tensor([[1000.0, 0.0, 0.0]], dtype=torch.float64)
    other = torch.tensor([[0.0, 1000.0, 0.0]], dtype=torch.float64)
    return step_outputs(dola_step({2: final, 0: other, 1: final.clone()}, [0, 1], 2, alpha=0.1))


@case(**F64)
def threshold_is_relative_to_the_mature_maximum():
    final = torch.tensor([[8.0, 4.0, 2.0, 1.0]], dtype=torch.float64).log()
    prem = torch.tensor([[1.0, 1.0, 1.0, 20.0]], dtype=torch.float64).log()
    return step_outputs(dola_step({1: final, 0: prem}, [0], 1, alpha=0.3))


# --------------------------------------------------------------------------- properties (check file)


@case(**F64)
def invariant_to_per_row_logit_shifts():
    logits = random_layers(11, 5, 6, 17)
    shift = random_layers(12, 5, 6, 1, scale=50.0)  # one constant per layer and row
    return {"a": step_outputs(run(logits, [0, 1, 2, 3, 4], 5, 0.1)),
            "b": step_outputs(run(logits + shift, [0, 1, 2, 3, 4], 5, 0.1))}


@case(**F64)
def alpha_one_keeps_only_the_maximisers():
    logits = random_layers(21, 3, 5, 9)
    logits[3, 0, 4] = logits[3, 0, 2] = logits[3, 0].max() + 1.0  # row 0: two tokens tie for the max
    return {**step_outputs(run(logits, [0, 1, 2], 3, 1.0)), "mature_argmax": logits[3].argmax(dim=-1)}


@case(**F64)
def alpha_zero_keeps_every_token():
    return step_outputs(run(random_layers(22, 3, 4, 9, scale=200.0), [0, 2], 3, 0.0))


@case(**F64)
def each_row_selects_its_own_layer():
    gen = torch.Generator().manual_seed(5)
    final = torch.randn(3, 10, generator=gen, dtype=torch.float64)
    near = final + 0.05 * torch.randn(3, 10, generator=gen, dtype=torch.float64)
    far = -2.0 * final
    # Row r has its far layer at candidate position r.
    layer = {3: final}
    for j in range(3):
        layer[j] = torch.stack([far[r] if r == j else near[r] for r in range(3)])
    res = dola_step(layer, [0, 1, 2], 3, 0.1)
    return {**step_outputs(res), "contrast": final.log_softmax(-1) - far.log_softmax(-1)}


@case(**F64)
def candidate_order_only_permutes_jsd():
    logits = random_layers(31, 6, 7, 12)
    order = [4, 0, 5, 2, 1, 3]
    return {"order": order, "a": step_outputs(run(logits, [0, 1, 2, 3, 4, 5], 6, 0.1)),
            "b": step_outputs(run(logits, order, 6, 0.1))}


@case(**F64)
def exact_tie_goes_to_first_listed_candidate():
    logits = random_layers(41, 4, 3, 8)
    logits[1] = -3.0 * logits[4]  # far from the mature layer 4 ...
    logits[3] = logits[1].clone()  # ... and layer 3 identical to layer 1: an exact tie for the maximum
    return only_tensors({"premature_first_1": run(logits, [1, 0, 3], 4, 0.1).premature_layer,
                         "premature_first_3": run(logits, [3, 0, 1], 4, 0.1).premature_layer})


@case(**F64)
def single_candidate_is_static_dola():
    logits = random_layers(51, 3, 4, 10)
    res = run(logits, [1], 3, 0.2)
    return {**step_outputs(res), "contrast": logits[3].log_softmax(-1) - logits[1].log_softmax(-1)}


@case(**F64)
def jsd_is_symmetric_and_bounded():
    logits = random_layers(61, 1, 6, 15)
    return only_tensors({"ab": run(logits, [0], 1, 0.1).jsd, "ba": run(logits.flip(0), [0], 1, 0.1).jsd})


@case(rtol=1e-4, atol=1e-5, outputs={"*premature*": {"compare": "exact"}, "jsd_f64": {"rtol": 1e-7, "atol": 1e-9}})
def float32_input_keeps_dtype():
    logits = random_layers(71, 3, 2, 6).float()
    res = run(logits, [0, 1], 3, 0.1)
    ref = run(logits.double(), [0, 1], 3, 0.1)
    return {"scores_dtype": str(res.scores.dtype),
            **only_tensors({"jsd": res.jsd, "premature_layer": res.premature_layer,
                            "premature_layer_f64": ref.premature_layer, "jsd_f64": ref.jsd})}


# --------------------------------------------------------------------------- decoding


def load_model() -> EarlyExitLM:
    model = EarlyExitLM(TinyLMConfig(**GENERATION["config"]))
    model.load_state_dict(GENERATION["state_dict"])
    return model.to(torch.float64).eval()


@case(params=range(len(GENERATION["runs"])), compare="exact")
def greedy_dola_decoding_matches_reference(i: int):
    r = GENERATION["runs"][i]
    out = dola_generate(load_model(), GENERATION["prompts"], 10, r["candidate_layers"], alpha=r["alpha"])
    return only_tensors({"tokens": out.tokens, "premature_layers": out.premature_layers})


@case(compare="exact")
def alpha_one_reduces_to_greedy_decoding():
    model = load_model()
    prompts = GENERATION["prompts"]
    return only_tensors({"dola": dola_generate(model, prompts, 8, [0, 2, 4], alpha=1.0).tokens,
                         "greedy": greedy_generate(model, prompts, 8)})
