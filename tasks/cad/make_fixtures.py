"""Regenerate tests/fixtures for cad/1 from the reference implementation.

Run from a copy of the repository with the reference applied:  python make_fixtures.py OUT_DIR
Inputs and options only (and the tiny model's weights): the reference's outputs are computed by the probe and
stored outside the sandbox, in tests/expected/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from cad.decoding import cad_generate
from cad.model import LMConfig, TinyCausalLM

CFG = LMConfig(vocab_size=24, d_model=16, n_heads=2, n_layers=2, max_len=48)


def distribution_cases() -> list[dict]:
    gen = torch.Generator().manual_seed(2023)
    cases = []
    # (shape, alpha, logit scale)
    for shape, alpha, scale in [
        ((1, 5), 0.5, 2.0), ((4, 17), 0.5, 3.0), ((3, 32), 1.0, 2.0), ((2, 3, 11), 0.25, 4.0),
        ((6, 8), 2.0, 1.0), ((5, 50), 0.0, 3.0), ((8,), 1.5, 2.0), ((3, 9), 0.5, 400.0),
        ((2, 2, 2, 13), 3.0, 5.0),
    ]:
        with_ctx = torch.randn(*shape, generator=gen, dtype=torch.float64) * scale
        without_ctx = 0.6 * with_ctx + torch.randn(*shape, generator=gen, dtype=torch.float64) * scale
        cases.append({"with_ctx": with_ctx, "without_ctx": without_ctx, "alpha": alpha})
    return cases


def make_model() -> TinyCausalLM:
    torch.manual_seed(11)
    return TinyCausalLM(CFG).double().eval()


def generation_cases(model: TinyCausalLM) -> dict:
    gen = torch.Generator().manual_seed(7)
    ctx = torch.randint(3, CFG.vocab_size, (4, 6), generator=gen)
    qry = torch.randint(3, CFG.vocab_size, (4, 4), generator=gen)
    runs = []

    def record(name: str, c: torch.Tensor, q: torch.Tensor, **kw) -> None:
        seed = kw.pop("seed", None)
        runs.append({"name": name, "context": c, "query": q, "seed": seed, "kwargs": kw})

    record("greedy", ctx, qry, max_new_tokens=8, alpha=0.5)
    record("greedy_alpha1", ctx, qry, max_new_tokens=8, alpha=1.0)
    record("greedy_alpha3", ctx, qry, max_new_tokens=6, alpha=3.0)
    record("batch_of_one", ctx[2:3], qry[2:3], max_new_tokens=8, alpha=0.5)
    record("sample", ctx, qry, max_new_tokens=8, alpha=0.5, do_sample=True, seed=123)
    record("sample_hot", ctx, qry, max_new_tokens=8, alpha=1.0, do_sample=True, temperature=1.7, seed=5)
    record("sample_cold", ctx, qry, max_new_tokens=8, alpha=0.5, do_sample=True, temperature=0.6, seed=9)

    # EOS: make the token that row 0 emits at step 2 the EOS, so row 0 stops early and pads.
    probe = cad_generate(model, ctx, qry, 8, alpha=0.5)
    eos = int(probe.tokens[0, 2])
    record("greedy_eos", ctx, qry, max_new_tokens=8, alpha=0.5, eos_token_id=eos, pad_token_id=0)
    # A batch of one stops as soon as it emits EOS.
    record("greedy_eos_single", ctx[:1], qry[:1], max_new_tokens=8, alpha=0.5, eos_token_id=eos, pad_token_id=1)
    probe = cad_generate(model, ctx, qry, 8, alpha=0.5, do_sample=True, generator=torch.Generator().manual_seed(31))
    eos = int(probe.tokens[1, 1])
    record("sample_eos", ctx, qry, max_new_tokens=8, alpha=0.5, do_sample=True, seed=31, eos_token_id=eos,
           pad_token_id=2)
    return {"runs": runs}


def sampling_distribution() -> dict:
    """One prompt for the first-step frequency tests (the probe emits the model's logits for it)."""
    gen = torch.Generator().manual_seed(77)
    ctx = torch.randint(3, CFG.vocab_size, (1, 5), generator=gen)
    qry = torch.randint(3, CFG.vocab_size, (1, 3), generator=gen)
    return {"context": ctx, "query": qry, "alpha": 1.0}


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model = make_model()
    torch.save(distribution_cases(), out / "cad_distribution_cases.pt")
    torch.save({"config": {k: getattr(CFG, k) for k in CFG.__dataclass_fields__},
                "state_dict": model.state_dict()}, out / "cad_model.pt")
    torch.save(generation_cases(model), out / "cad_generation.pt")
    torch.save(sampling_distribution(), out / "cad_first_step.pt")


if __name__ == "__main__":
    main(sys.argv[1])
