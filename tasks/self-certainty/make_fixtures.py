"""Regenerate tests/fixtures for self-certainty/1 (inputs and options only; the reference's outputs go to
tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/selfcert_cases.pt: a dict of case lists, one list per kind of case. Deterministic.

The end-to-end cases use seeds whose sampled responses are all distinct (so no two responses tie in confidence,
and the order of equal scores, which the paper leaves open, never matters); the repository's sampler is
imported for that check only.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch
from bon.batch import collate
from bon.config import SamplingConfig
from bon.sampling import sample_responses
from bon.toy_lm import ToyLM


def logits_for(g: torch.Generator, shape: tuple[int, int, int], dtype: torch.dtype) -> torch.Tensor:
    """Random logits with a random sharpness per position (flat and peaked distributions)."""
    scale = torch.rand(*shape[:2], 1, generator=g, dtype=torch.float64) * 5.0 + 0.1
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def score_cases(g: torch.Generator) -> list[dict]:
    """Batches of prompts and responses of many lengths, with junk logits where no response token is predicted."""
    cases = []
    specs = (  # (prompt lengths, response lengths, V)
        ((3, 1, 4), (5, 2, 7), 22), ((2,), (1,), 6), ((0, 4), (3, 1), 9), ((5, 5, 5, 5), (1, 8, 3, 6), 50),
        ((1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2, 1), 13), ((7,), (12,), 3))
    for prompt_lengths, response_lengths, vocab in specs:
        for dtype in (torch.float64, torch.float32):
            prompts = [torch.randint(0, vocab, (n,), generator=g).tolist() for n in prompt_lengths]
            responses = [torch.randint(0, vocab, (n,), generator=g).tolist() for n in response_lengths]
            batch = collate(prompts, responses)
            logits = logits_for(g, (*batch.input_ids.shape, vocab), torch.float64)
            used = torch.zeros_like(batch.response_mask)
            used[:, :-1] = batch.response_mask[:, 1:]
            junk = torch.randn(logits.shape, generator=g, dtype=torch.float64) * 40.0
            logits = torch.where(used.unsqueeze(-1), logits, junk).to(dtype)
            cases.append({"prompts": prompts, "responses": responses, "logits": logits})
    return cases


def stream_cases(g: torch.Generator) -> list[dict]:
    """Per-step logits, tokens and active masks as `sample_responses` emits them (rows end one after another)."""
    cases = []
    for n, steps, vocab in ((4, 6, 22), (1, 3, 5), (6, 9, 11), (3, 1, 7)):
        lengths = torch.randint(1, steps + 1, (n,), generator=g)
        lengths[0] = steps
        logits = logits_for(g, (steps, n, vocab), torch.float64)
        active = torch.arange(steps).unsqueeze(1) < lengths.unsqueeze(0)
        drawn = torch.randint(0, vocab, (steps, n), generator=g)
        tokens = torch.where(active, drawn, torch.zeros((), dtype=torch.long))
        cases.append({"logits": logits, "tokens": tokens, "active": active})
    return cases


def select_cases(g: torch.Generator) -> list[dict]:
    """Distinct scores, answers with equivalent spellings and missing answers, every method and several powers."""
    pool = ["3", "03", "7", "12", "012", "0", "00", None]
    cases = []
    for n in (1, 2, 3, 5, 8, 13, 16):
        for trial in range(2):
            scores = torch.randn(n, generator=g, dtype=torch.float64) * 2.0
            weights = torch.tensor([3.0, 1.0, 3.0, 1.5, 1.0, 1.0, 0.5, 1.5 if trial else 0.3])
            picks = torch.multinomial(weights, n, replacement=True, generator=g).tolist()
            answers = [pool[k] for k in picks]
            for method, power in (("max", 0.5), ("majority", 0.5), ("borda", 0.0), ("borda", 0.3), ("borda", 1.0),
                                  ("borda", 2.5)):
                cases.append({"scores": scores, "answers": answers, "method": method, "power": power})
    cases.append({"scores": torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64), "answers": [None, None, None],
                  "method": "borda", "power": 1.0})
    cases.append({"scores": torch.tensor([0.5, -1.0, 2.0], dtype=torch.float32), "answers": ["5", None, "05"],
                  "method": "borda", "power": 1.0})
    return cases


def distinct_responses(seed: int, prompts: list[list[int]], n: int, cfg: SamplingConfig) -> bool:
    model, g = ToyLM(), torch.Generator().manual_seed(seed)
    for prompt in prompts:
        responses = sample_responses(model, prompt, n, cfg, g)
        if len({tuple(r) for r in responses}) < n:
            return False
    return True


def driver_cases() -> list[dict]:
    """End-to-end runs: prompts, N, scoring batch size, streaming, measure, method, power, temperature, seed."""
    specs = (
        ([[6, 14, 10, 21]], 6, 4, False, "self_certainty", "borda", 0.5, 1.0),
        ([[5, 14, 11, 14, 4, 21], [13, 21], []], 5, 4, False, "self_certainty", "borda", 1.0, 1.0),
        ([[5, 14, 11, 14, 4, 21], [13, 21], []], 5, 4, True, "self_certainty", "borda", 1.0, 1.0),
        ([[9, 14, 7, 21], [4]], 4, 3, False, "perplexity", "max", 0.5, 1.0),
        ([[9, 14, 7, 21], [4]], 4, 8, True, "distributional_perplexity", "majority", 0.5, 1.0),
        ([[8, 21]], 1, 1, False, "entropy", "borda", 2.0, 1.0),
        ([[7, 14, 8]], 3, 2, True, "avg_logprob", "max", 0.5, 1.0),
    )
    cases = []
    for prompts, n, batch, streaming, measure, method, power, temperature in specs:
        seed = 0
        while not distinct_responses(seed, prompts, n, SamplingConfig(temperature=temperature)):
            seed += 1
        cases.append({"prompts": prompts, "n": n, "score_batch_size": batch, "streaming": streaming,
                      "measure": measure, "method": method, "power": power, "temperature": temperature, "seed": seed})
    return cases


def main(out_dir: str) -> None:
    g = torch.Generator().manual_seed(20250225)
    cases = {"score": score_cases(g), "stream": stream_cases(g), "select": select_cases(g), "driver": driver_cases()}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(cases, out / "selfcert_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
