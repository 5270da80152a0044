"""Probe for cad/1: `cad_log_probs` and `cad_generate` in cad/decoding.py. Runs in the sandbox; emits outputs
only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_cad.py add the hand-computed distribution, the properties of CAD and the sampling tests."""

from __future__ import annotations

from pathlib import Path

import torch
from cad.decoding import cad_generate, cad_log_probs, generate
from cad.model import LMConfig, TinyCausalLM
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
DIST_CASES = torch.load(FIXTURES / "cad_distribution_cases.pt", weights_only=True)
GEN = torch.load(FIXTURES / "cad_generation.pt", weights_only=True)
RUNS = {r["name"]: r for r in GEN["runs"]}
FIRST_STEP = torch.load(FIXTURES / "cad_first_step.pt", weights_only=True)
ATOL, RTOL = 1e-10, 1e-8
# token ids are compared exactly, whatever their dtype (the old tests compared `.tolist()`)
GEN_TOL = dict(atol=1e-9, rtol=1e-8, outputs={"*tokens": {"compare": "exact", "dtype": False}})


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


def cad(lc: torch.Tensor, lq: torch.Tensor, alpha: float) -> torch.Tensor:
    """`cad_log_probs`, whose result must be a tensor (a `None` is reported as a TypeError, not emitted)."""
    out = cad_log_probs(lc, lq, alpha)
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"cad_log_probs returned {type(out).__name__}, not a tensor")
    return out


def emit(out) -> dict:
    return {"tokens": out.tokens, "token_logprobs": out.token_logprobs}


# --------------------------------------------------------------------------- the distribution


@case(params=range(len(DIST_CASES)), atol=ATOL, rtol=RTOL)
def log_probs_match_reference(idx: int):
    c = DIST_CASES[idx]
    return {"log_probs": cad(c["with_ctx"], c["without_ctx"], c["alpha"])}


@case(atol=1e-12, rtol=0.0)
def hand_computed_distribution():
    lc = torch.tensor([2.0, 0.0, 0.0], dtype=torch.float64)
    lq = torch.tensor([1.0, 1.0, 0.0], dtype=torch.float64)
    return {"alpha1": cad(lc, lq, 1.0), "alpha0.5": cad(lc, lq, 0.5)}


@case(atol=1e-10, rtol=1e-8, outputs={"shifted": dict(atol=1e-9, rtol=1e-9)})
def normalised_and_invariant_to_logit_shifts():
    lc, lq = rand(1, 5, 30), rand(2, 5, 30)
    return {"out": cad(lc, lq, 0.7),
            "shifted": cad(lc + rand(3, 5, 1, scale=40.0), lq - rand(4, 5, 1, scale=40.0), 0.7)}


@case(atol=1e-12, rtol=0.0, outputs={"alpha*": dict(atol=1e-10)})
def alpha_zero_and_uninformative_context_give_plain_decoding():
    lc, lq = rand(5, 4, 12), rand(6, 4, 12)
    out = {"lc": lc, "zero": cad(lc, lq, 0.0)}
    for alpha in (0.5, 1.0, 4.0):
        out[f"alpha{alpha}"] = cad(lc, lc.clone(), alpha)
    return out


@case(atol=1e-10, rtol=1e-10)
def log_odds_follow_the_contrast():
    lc, lq = rand(7, 3, 9), rand(8, 3, 9)
    return {"lc": lc, "lq": lq, "out": cad(lc, lq, 1.3)}


@case(atol=1e-10, rtol=1e-8, outputs={"out32": dict(atol=1e-5, rtol=1e-5)})
def float32_and_leading_dims():
    lc, lq = rand(9, 2, 3, 7).float(), rand(10, 2, 3, 7).float()
    return {"out32": cad(lc, lq, 0.5), "out64": cad(lc.double(), lq.double(), 0.5)}


# --------------------------------------------------------------------------- the decoding loop


@case(params=list(RUNS), ids=list(RUNS), **GEN_TOL)
def generation_matches_reference(name: str):
    return emit(run(name))


@case(atol=1e-10, rtol=0.0, outputs={"*tokens": {"compare": "exact", "dtype": False}})
def alpha_zero_is_plain_decoding_with_context():
    r = RUNS["greedy"]
    out = cad_generate(MODEL, r["context"], r["query"], 8, alpha=0.0)
    plain = generate(MODEL, torch.cat([r["context"], r["query"]], dim=1), 8)
    return {"cad": emit(out), "plain": emit(plain)}


@case(atol=1e-9, rtol=0.0, outputs={"*tokens": {"compare": "exact", "dtype": False}})
def empty_context_is_plain_decoding_for_any_alpha():
    r = RUNS["greedy"]
    empty = r["context"][:, :0]
    out = {"plain": emit(generate(MODEL, r["query"], 7))}
    for alpha in (0.5, 2.0):
        out[f"alpha{alpha}"] = emit(cad_generate(MODEL, empty, r["query"], 7, alpha=alpha))
    return out


@case(**GEN_TOL)
def both_branches_condition_on_the_generated_tokens():
    # Teacher-force the generated tokens through both branches; the check recomputes every step's CAD log-prob.
    r = RUNS["greedy_alpha1"]
    out = run("greedy_alpha1")
    ctx, qry, toks = r["context"], r["query"], out.tokens
    with torch.no_grad():
        full = MODEL(torch.cat([ctx, qry, toks], dim=1))
        bare = MODEL(torch.cat([qry, toks], dim=1))
    return {"n_ctx": ctx.shape[1], "n_query": qry.shape[1], "full": full, "bare": bare, **emit(out)}


@case(**GEN_TOL)
def eos_handling():
    kw = RUNS["greedy_eos"]["kwargs"]
    return {"eos": kw["eos_token_id"], "pad": kw["pad_token_id"], "max_new_tokens": kw["max_new_tokens"],
            "batch": emit(run("greedy_eos")), "single": emit(run("greedy_eos_single"))}


@case(dtype=False)
def zero_new_tokens():
    r = RUNS["greedy"]
    return emit(cad_generate(MODEL, r["context"], r["query"], 0, alpha=0.5))


def first_token_frequencies(n: int, temperature: float, seed: int) -> dict:
    ctx = FIRST_STEP["context"].expand(n, -1)
    qry = FIRST_STEP["query"].expand(n, -1)
    with torch.no_grad():
        lc = MODEL.next_token_logits(torch.cat([FIRST_STEP["context"], FIRST_STEP["query"]], dim=1))[0]
        lq = MODEL.next_token_logits(FIRST_STEP["query"])[0]
    out = cad_generate(MODEL, ctx, qry, 1, alpha=FIRST_STEP["alpha"], do_sample=True, temperature=temperature,
                       generator=torch.Generator().manual_seed(seed))
    freq = torch.bincount(out.tokens[:, 0], minlength=lc.numel()).double() / n
    return {"alpha": FIRST_STEP["alpha"], "temperature": temperature, "logits_with_context": lc,
            "logits_without_context": lq, "frequencies": freq}


# Sampling is judged by frequencies (the old tests' tolerance 0.03), not by the reference's exact draws:
# the frequencies are not compared with the reference's (compare "none"), only by the check.
@case(atol=1e-10, rtol=1e-8, outputs={"frequencies": {"compare": "none"}})
def samples_follow_the_cad_distribution():
    return first_token_frequencies(6000, 1.0, 2024)


@case(atol=1e-10, rtol=1e-8, outputs={"frequencies": {"compare": "none"}})
def temperature_rescales_the_cad_log_probs():
    return first_token_frequencies(6000, 0.5, 2025)
