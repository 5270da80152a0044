"""Input fixtures for soft-thinking/1 (inputs and options only, never an output of the reference).

Run as `python make_fixtures.py OUT_DIR` from a copy of the repository with the reference applied. The end-to-end
cases were chosen among seeded candidates (`--search`) so that every way thinking can end (the model's own end of
thinking, Cold Stop, the budget) and both ways an answer can end (end-of-sequence, the answer budget) occur, and so
that the same run with a float32 copy of the model takes the same discrete decisions (no near-ties); the choice is
recorded below and checked by meaning, so the fixture is the same bytes on every host."""
from __future__ import annotations

import sys
from dataclasses import asdict, replace
from pathlib import Path

import torch

from softthink.config import ModelConfig, SoftThinkingConfig
from softthink.model import TinyLM
from softthink.soft_thinking import soft_thinking_generate
from softthink.tokenizer import Tokenizer


def concept_cases() -> list[dict]:
    gen = torch.Generator().manual_seed(1234)
    specs = [  # shape, dtype, temperature, top_k, top_p, logit scale
        ((24,), torch.float64, 0.6, 15, 0.95, 3.0),
        ((24,), torch.float32, 0.6, 15, 0.95, 3.0),
        ((5, 24), torch.float64, 1.0, 5, 0.8, 2.0),
        ((5, 24), torch.float32, 1.0, 5, 0.8, 2.0),
        ((2, 3, 17), torch.float64, 0.5, 0, 0.9, 2.0),
        ((4, 30), torch.float64, 1.3, 30, 0.7, 1.0),
        ((4, 30), torch.float64, 0.8, 8, 1.0, 2.0),
        ((3, 11), torch.float64, 2.0, 40, 1.0, 1.0),
        ((6, 40), torch.float64, 0.7, 3, 0.6, 4.0),
        ((6, 40), torch.float64, 1.0, 20, 0.5, 0.5),
        ((1, 9), torch.float64, 0.25, 1, 0.99, 1.0),
        ((3, 16), torch.float64, 1.0, 6, 0.3, 6.0),
        ((8, 50), torch.float32, 0.9, 12, 0.85, 3.0),
        ((2, 7), torch.float64, 1.0, 7, 0.999, 0.2),
    ]
    out = []
    for shape, dtype, temp, k, p, scale in specs:
        while True:  # redraw until no top-k / top-p boundary is near a tie
            logits = (torch.randn(shape, generator=gen, dtype=torch.float64) * scale)
            pr = torch.softmax(logits / temp, -1).reshape(-1, shape[-1])
            s = pr.sort(-1, descending=True).values
            ok = bool(((s[:, :-1] / s[:, 1:] - 1).min() > 1e-6))
            kk = k if 0 < k < shape[-1] else shape[-1]
            sk = s[:, :kk] / s[:, :kk].sum(-1, keepdim=True)
            ok = ok and (p == 1.0 or kk == 1 or bool(((sk.cumsum(-1)[:, :-1] - p).abs().min() > 1e-5)))
            if ok:
                break
        out.append({"logits": logits.to(dtype), "temperature": temp, "top_k": k, "top_p": p})
    return out


def cold_cases() -> list[dict]:
    gen = torch.Generator().manual_seed(99)
    out = []
    for threshold, patience, n in ((0.5, 3, 20), (0.1, 1, 12), (0.3, 4, 30), (1.0, 2, 16), (0.05, 6, 40)):
        base = torch.rand(n, generator=gen, dtype=torch.float64) * 2 * threshold
        low = torch.rand(n, generator=gen) < 0.7
        ent = torch.where(low, base * 0.45, threshold * 1.05 + base)
        out.append({"entropies": ent, "threshold": threshold, "patience": patience,
                    "reset_at": int(torch.randint(n, (1,), generator=gen))})
    return out


def embedding_cases() -> list[dict]:
    gen = torch.Generator().manual_seed(7)
    out = []
    for shape, v, d, dtype in (((3,), 10, 4, torch.float64), ((2, 5), 24, 8, torch.float64),
                               ((4,), 30, 6, torch.float32), ((1,), 6, 3, torch.float64)):
        probs = torch.rand(*shape, v, generator=gen, dtype=torch.float64) ** 3
        probs = probs * (torch.rand(*shape, v, generator=gen) < 0.4)
        probs[..., 0] += 0.05  # at least one kept token per row
        probs = probs / probs.sum(-1, keepdim=True)
        weight = torch.randn(v, d, generator=gen, dtype=torch.float64)
        out.append({"concept": probs.to(dtype), "weight": weight.to(dtype)})
    return out


def run(model_cfg: ModelConfig, question: str, cfg: SoftThinkingConfig, dtype: torch.dtype):
    tok = Tokenizer()
    model = TinyLM.from_seed(model_cfg, dtype)
    return soft_thinking_generate(model, tok.prompt(question), cfg, tok.end_think_id, tok.eos_id)


QUESTIONS = ("12+7=?", "3*4=?", "99-1=?", "a b?", "7-7=?", "0=?")
CFGS = [
    SoftThinkingConfig(),
    SoftThinkingConfig(temperature=0.3, top_p=0.8, cold_stop_threshold=0.05, cold_stop_patience=3),
    SoftThinkingConfig(temperature=0.5, top_k=4, top_p=0.9, cold_stop_threshold=0.2, cold_stop_patience=2),
    SoftThinkingConfig(temperature=1.0, top_k=0, top_p=1.0, cold_stop=False, max_think_tokens=12),
    SoftThinkingConfig(temperature=0.4, top_k=6, top_p=0.7, cold_stop_threshold=0.01, cold_stop_patience=5,
                       max_think_tokens=40),
    SoftThinkingConfig(temperature=0.8, top_k=10, top_p=0.95, cold_stop_threshold=0.3, cold_stop_patience=1),
]
WANT = {"end_think": 3, "cold_stop": 5, "max_think": 3}
# The end-to-end cases, recorded: (model seed, question index) with the weighted mixture, then the seeds of the
# average-embedding ablation. They were chosen by `search()` (below) on the authors' host. The choice compares a
# float32 rerun with the float64 run, so it depends on the host's kernels in the last bits (an AMD host's MKL chose
# another case); recording it keeps the fixture the same bytes on every host, and `check_meaning` checks, in
# float64 (whose decisions are far from any tie here), that the recorded cases still cover what they were chosen for.
WEIGHTED = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 2), (5, 0), (6, 1), (10, 0), (11, 0), (12, 1), (14, 0)]
UNIFORM = [102, 103]


def model_cfg(tok: Tokenizer, seed: int, uniform: bool) -> ModelConfig:
    if uniform:
        return ModelConfig(vocab_size=tok.vocab_size, seed=seed)
    return ModelConfig(vocab_size=tok.vocab_size, seed=seed, init_std=0.5 + 0.1 * (seed % 4))


def e2e_cases() -> list[dict]:
    tok = Tokenizer()
    out = []
    for seed, qi in WEIGHTED:
        out.append({"model": asdict(model_cfg(tok, seed, False)), "question": QUESTIONS[qi],
                    "cfg": asdict(CFGS[(seed + qi) % len(CFGS)])})
    for seed in UNIFORM:
        out.append({"model": asdict(model_cfg(tok, seed, True)), "question": QUESTIONS[seed % len(QUESTIONS)],
                    "cfg": asdict(replace(CFGS[seed % len(CFGS)], mixture="uniform"))})
    return out


def _rerun(case: dict, dtype: torch.dtype):
    return run(ModelConfig(**case["model"]), case["question"], SoftThinkingConfig(**case["cfg"]), dtype)


def check_meaning(cases: list[dict]) -> None:
    """Every way thinking can end occurs as often as wanted, at least three answers end with end-of-sequence, and
    every ablation case thinks for at least three concept tokens (float64 runs; raises if not). A float32 rerun
    that takes other decisions (a near-tie on this host) is reported on stderr, not fatal."""
    tok = Tokenizer()
    got = {k: 0 for k in WANT}
    eos = 0
    for case in cases:
        a = _rerun(case, torch.float64)
        if case["cfg"]["mixture"] == "weighted":
            got[a.stop_reason] += 1
            eos += bool(len(a.answer_ids) and int(a.answer_ids[-1]) == tok.eos_id)
        elif len(a.concept_tokens) < 3:
            raise RuntimeError(f"ablation case {case['model']['seed']} thinks for {len(a.concept_tokens)} tokens")
        b = _rerun(case, torch.float32)
        if (a.stop_reason != b.stop_reason or len(a.concept_tokens) != len(b.concept_tokens)
                or not torch.equal(a.answer_ids, b.answer_ids)):
            print(f"note: case seed {case['model']['seed']} decides otherwise in float32 on this host",
                  file=sys.stderr)
    if got != WANT or eos < 3:
        raise RuntimeError(f"the recorded end-to-end cases no longer cover the stop reasons: {got}, eos {eos}")


def search() -> None:
    """How the recorded cases were found (`python make_fixtures.py --search`): seeded candidates in order, kept
    when they add a wanted stop reason and a float32 copy of the model takes the same discrete decisions."""
    tok = Tokenizer()
    got = {k: 0 for k in WANT}
    for seed in range(60):
        for qi in range(len(QUESTIONS)):
            case = {"model": asdict(model_cfg(tok, seed, False)), "question": QUESTIONS[qi],
                    "cfg": asdict(CFGS[(seed + qi) % len(CFGS)])}
            a, b = _rerun(case, torch.float64), _rerun(case, torch.float32)
            if got[a.stop_reason] >= WANT[a.stop_reason] or a.stop_reason != b.stop_reason:
                continue
            if len(a.concept_tokens) == len(b.concept_tokens) and torch.equal(a.answer_ids, b.answer_ids):
                got[a.stop_reason] += 1
                print(seed, qi, a.stop_reason, int(a.answer_ids[-1]) == tok.eos_id if len(a.answer_ids) else False)
                break


def main() -> None:
    if sys.argv[1] == "--search":
        search()
        return
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    e2e = e2e_cases()
    check_meaning(e2e)
    torch.save({"concept": concept_cases(), "embedding": embedding_cases(), "cold": cold_cases(), "e2e": e2e},
               out_dir / "soft_thinking_cases.pt")


if __name__ == "__main__":
    main()
