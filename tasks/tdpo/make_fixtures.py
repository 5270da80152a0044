"""Regenerate tests/fixtures for tdpo/1 (token_level_stats) and tdpo/2 (tdpo_loss) from the reference.

Run from the repository root with the reference applied (repository on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/token_stats_cases.pt and OUT_DIR/tdpo_loss_cases.pt: inputs and options only (the reference's
outputs are computed by the probes and stored outside the sandbox, in tests/expected/). Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch


def make_labels(g, batch, seq_len, vocab, ignore_index, empty_row=False):
    labels = torch.randint(0, vocab, (batch, seq_len), generator=g)
    for b in range(batch):
        prompt = int(torch.randint(1, max(1, seq_len // 2) + 1, (1,), generator=g))
        resp_end = int(torch.randint(prompt + 1, seq_len + 1, (1,), generator=g))
        labels[b, :prompt] = ignore_index
        labels[b, resp_end:] = ignore_index
    if empty_row:
        labels[-1] = ignore_index  # a row with nothing scored
    return labels


def token_case(g, batch, seq_len, vocab, scale, ref_noise, dtype=torch.float64, ignore_index=-100, empty_row=False):
    policy = scale * torch.randn(batch, seq_len, vocab, generator=g, dtype=torch.float64)
    reference = policy + ref_noise * torch.randn(batch, seq_len, vocab, generator=g, dtype=torch.float64)
    policy, reference = policy.to(dtype), reference.to(dtype)
    labels = make_labels(g, batch, seq_len, vocab, ignore_index, empty_row)
    return {"policy_logits": policy, "reference_logits": reference, "labels": labels, "ignore_index": ignore_index}


def token_cases() -> list[dict]:
    g = torch.Generator().manual_seed(2404_11999)
    cases = []
    for batch, seq_len, vocab in ((1, 2, 3), (1, 6, 5), (3, 7, 11), (5, 9, 17), (8, 5, 4)):
        for scale, ref_noise in ((1.0, 0.5), (3.0, 3.0)):
            cases.append(token_case(g, batch, seq_len, vocab, scale, ref_noise))
    cases.append(token_case(g, 4, 6, 7, 1.0, 1.0, empty_row=True))
    cases.append(token_case(g, 4, 6, 7, 1.0, 1.0, ignore_index=-1))
    cases.append(token_case(g, 3, 5, 9, 30.0, 30.0))  # peaked distributions: needs log_softmax, not log(softmax)
    cases.append(token_case(g, 4, 8, 10, 2.0, 1.0, dtype=torch.float32))
    return cases


def loss_case(g, batch, beta, alpha, use_tdpo2, spread=5.0, dtype=torch.float64):
    cm = spread * torch.randn(batch, generator=g, dtype=torch.float64)
    rm = spread * torch.randn(batch, generator=g, dtype=torch.float64)
    ckl = 2 * spread * torch.rand(batch, generator=g, dtype=torch.float64)
    rkl = 2 * spread * torch.rand(batch, generator=g, dtype=torch.float64)
    inputs = [x.to(dtype) for x in (cm, rm, ckl, rkl)]
    return {"inputs": inputs, "beta": beta, "alpha": alpha, "use_tdpo2": use_tdpo2}


def loss_cases() -> list[dict]:
    g = torch.Generator().manual_seed(18_04_2024)
    cases = []
    for batch in (1, 6, 20):
        for beta in (0.05, 0.1, 0.5, 2.0):
            for alpha in (0.0, 0.5, 1.3):
                cases.append(loss_case(g, batch, beta, alpha, True))
            cases.append(loss_case(g, batch, beta, 0.5, False))
    for use_tdpo2 in (False, True):
        cases.append(loss_case(g, 10, 1.0, 0.7, use_tdpo2, spread=3000.0))  # |argument| in the thousands
        cases.append(loss_case(g, 7, 0.1, 0.5, use_tdpo2, spread=4.0, dtype=torch.float32))
    return cases


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.save(token_cases(), out / "token_stats_cases.pt")
    torch.save(loss_cases(), out / "tdpo_loss_cases.pt")


if __name__ == "__main__":
    main()
